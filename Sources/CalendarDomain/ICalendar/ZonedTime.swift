import CLibical

/// A DATE or DATE-TIME of an iCalendar property: its wall time and zone (`nil`: floating; UTC for
/// `Z` times), or a date.
struct ZonedTime {
    var wall: LocalDateTime
    var zone: ZoneRules?
    var isDate: Bool
    /// True when the time was read through a VTIMEZONE with no tz database name whose offset changes
    /// (daylight saving time): it is kept in UTC, a fixed offset, so a rule repeating it does not
    /// follow the zone's changes.
    var fixedFromChangingZone = false

    init(wall: LocalDateTime, zone: ZoneRules?, isDate: Bool) {
        self.wall = wall
        self.zone = zone
        self.isDate = isDate
    }

    /// The value of `property` (of a component inside its VCALENDAR, so a TZID resolves to its VTIMEZONE).
    init(_ property: OpaquePointer, _ time: icaltimetype) throws(ICalendarReader.Refusal) {
        guard let wall = ICalendarText.local(time) else {
            throw ICalendarReader.Refusal(reason: "a date outside \(LocalDateTime.years.lowerBound)...\(LocalDateTime.years.upperBound)")
        }
        self.wall = wall
        isDate = time.is_date != 0
        zone = nil
        if isDate { return }
        if icaltime_is_utc(time) != 0 {
            zone = ZoneRules.named("UTC")
            return
        }
        guard let tzid = icalproperty_get_first_parameter(property, ICAL_TZID_PARAMETER).flatMap({ icalparameter_get_tzid($0) })
            .map({ String(cString: $0) }) else { return }
        if let iana = Self.ianaZone(tzid) {
            zone = iana
            return
        }
        // No IANA or Windows name: the file's VTIMEZONE gives the instant, kept in UTC.
        let resolved = icalproperty_get_datetime_with_component(property, nil)
        guard let icalZone = resolved.zone else {
            // The TZID is not quoted: an error never quotes what a file holds.
            throw ICalendarReader.Refusal(reason: "the TZID is no IANA zone name and has no VTIMEZONE in the file that is kept "
                                          + "(one with \(VTimezoneBounds.refusal) is not)")
        }
        zone = ZoneRules.named("UTC")
        self.wall = LocalDateTime(seconds: Int64(icaltime_as_timet_with_zone(resolved, icalZone)))
        fixedFromChangingZone = icaltimezone_get_component(icalZone).map(VTimezoneBounds.changesOffset) ?? false
    }

    /// The IANA zone a TZID names, also behind a path prefix (`/mozilla.org/20050126_1/Europe/Berlin`,
    /// `/freeassociation.sourceforge.net/Tzfile/Europe/Berlin`), or by its Windows name (``WindowsZones``).
    static func ianaZone(_ tzid: String) -> ZoneRules? {
        if let zone = ZoneRules.named(tzid) { return zone }
        let parts = tzid.split(separator: "/")
        for count in [3, 2, 1] where parts.count > count {
            if let zone = ZoneRules.named(parts.suffix(count).joined(separator: "/")) { return zone }
        }
        return WindowsZones.ianaName(tzid).flatMap(ZoneRules.named)
    }

    /// The instant; a floating time is read in `reference`'s zone (on the UTC wall clock when that floats too).
    func instant(floatingIn reference: ZonedTime) -> Int64 {
        (zone ?? reference.zone)?.instant(of: wall) ?? wall.seconds
    }

    /// This time on the wall clock of `reference`'s zone: how EXDATE, RDATE and RECURRENCE-ID become
    /// override keys of the event `reference` starts.
    func wall(in reference: ZonedTime) -> LocalDateTime {
        if reference.isDate { return wall.date.midnight }
        guard let zone, let target = reference.zone, zone.identifier != target.identifier else { return wall }
        return target.local(at: zone.instant(of: wall))
    }
}
