import CLibical

/// Refuses the VTIMEZONEs of a file whose rules libical could not expand in bounded work.
///
/// libical turns a VTIMEZONE into a list of offset changes, from each STANDARD/DAYLIGHT's DTSTART up to
/// the year an event asks for, all at once and uninterruptibly: a `RRULE:FREQ=MINUTELY` from 1970 is
/// some 30 million changes (a 651-byte file held the host past 469 MB). A real zone changes its offset
/// a few times a year at most, by yearly rules or listed RDATEs, so a VTIMEZONE is kept only when each
/// rule is `FREQ=YEARLY` and yields at most ``maximumChangesPerYear`` changes a year, and when the
/// changes of all kept VTIMEZONEs together stay within ``maximumChanges``. Each STANDARD and DAYLIGHT
/// must also give both offsets, readable and within ±18 hours: libical reads `+999999` as 99 hours
/// and takes an unreadable one as no offset, so the file's times were moved or kept silently. A
/// VTIMEZONE needs a STANDARD or DAYLIGHT part at all: libical reads one without as UTC. A refused VTIMEZONE is
/// removed from the file before any event reads it: an event whose TZID needs it is then reported
/// (``ZonedTime``).
enum VTimezoneBounds {
    /// Changes a year one rule may make.
    static let maximumChangesPerYear = 4
    /// Changes all the VTIMEZONEs of one file may expand to, counted from each rule's DTSTART to ``horizonYear``.
    static let maximumChanges = 1_000_000
    /// The year expansions are counted through (events go up to ``LocalDateTime/years``).
    static let horizonYear = Int(LocalDateTime.years.upperBound)
    /// Why a VTIMEZONE is refused, for the events that need it.
    static let refusal = "rules that change the offset more than \(maximumChangesPerYear) times a year (or too many changes in all), "
        + "no STANDARD or DAYLIGHT part, or a TZOFFSETFROM or TZOFFSETTO missing, unreadable or beyond ±18 hours"
    /// The largest offset from UTC a STANDARD or DAYLIGHT may give, in seconds.
    static let maximumOffset: Int32 = 18 * 3600

    /// Removes the VTIMEZONEs of `root` (a VCALENDAR) that are out of bounds.
    static func removeUnbounded(from root: OpaquePointer) {
        var refused: [OpaquePointer] = []
        var budget = maximumChanges
        var zone = icalcomponent_get_first_component(root, ICAL_VTIMEZONE_COMPONENT)
        while let current = zone {
            if let changes = changes(of: current), changes <= budget {
                budget -= changes
            } else {
                refused.append(current)
            }
            zone = icalcomponent_get_next_component(root, ICAL_VTIMEZONE_COMPONENT)
        }
        for component in refused {
            icalcomponent_remove_component(root, component)
            icalcomponent_free(component)
        }
    }

    /// The offset changes `zone` expands to, about, or `nil` when a rule changes it too often or it
    /// has no STANDARD or DAYLIGHT part (libical reads such a zone as UTC without a word).
    private static func changes(of zone: OpaquePointer) -> Int? {
        var total = 0, observances = 0
        var observance = icalcomponent_get_first_component(zone, ICAL_ANY_COMPONENT)
        while let current = observance {
            defer { observance = icalcomponent_get_next_component(zone, ICAL_ANY_COMPONENT) }
            guard hasOffsets(current) else { return nil }
            let kind = icalcomponent_isa(current)
            if kind == ICAL_XSTANDARD_COMPONENT || kind == ICAL_XDAYLIGHT_COMPONENT { observances += 1 }
            let start = icalcomponent_get_first_property(current, ICAL_DTSTART_PROPERTY).map { icalproperty_get_dtstart($0) }
            var rule = icalcomponent_get_first_property(current, ICAL_RRULE_PROPERTY)
            while let property = rule {
                guard let start, let perYear = changesPerYear(icalproperty_get_rrule(property), from: start) else { return nil }
                total += perYear * max(horizonYear - Int(start.year) + 1, 1)
                rule = icalcomponent_get_next_property(current, ICAL_RRULE_PROPERTY)
            }
            var date = icalcomponent_get_first_property(current, ICAL_RDATE_PROPERTY)
            while date != nil {
                total += 1
                date = icalcomponent_get_next_property(current, ICAL_RDATE_PROPERTY)
            }
            if total > maximumChanges { return nil }
        }
        return observances > 0 ? total : nil
    }

    /// True when the STANDARD and DAYLIGHT parts of `zone` (a VTIMEZONE) give more than one offset:
    /// the zone has daylight saving time or has changed its offset.
    static func changesOffset(_ zone: OpaquePointer) -> Bool {
        var offsets = Set<Int32>()
        var observance = icalcomponent_get_first_component(zone, ICAL_ANY_COMPONENT)
        while let current = observance {
            if let from = icalcomponent_get_first_property(current, ICAL_TZOFFSETFROM_PROPERTY) { offsets.insert(icalproperty_get_tzoffsetfrom(from)) }
            if let to = icalcomponent_get_first_property(current, ICAL_TZOFFSETTO_PROPERTY) { offsets.insert(icalproperty_get_tzoffsetto(to)) }
            if offsets.count > 1 { return true }
            observance = icalcomponent_get_next_component(zone, ICAL_ANY_COMPONENT)
        }
        return false
    }

    /// True when `observance` gives TZOFFSETFROM and TZOFFSETTO within ``maximumOffset``, and libical
    /// refused neither (it drops an unreadable one, leaving an X-LIC-ERROR).
    private static func hasOffsets(_ observance: OpaquePointer) -> Bool {
        guard icalcomponent_get_first_property(observance, ICAL_XLICERROR_PROPERTY) == nil,
              let from = icalcomponent_get_first_property(observance, ICAL_TZOFFSETFROM_PROPERTY),
              let to = icalcomponent_get_first_property(observance, ICAL_TZOFFSETTO_PROPERTY) else { return false }
        return abs(icalproperty_get_tzoffsetfrom(from)) <= maximumOffset && abs(icalproperty_get_tzoffsetto(to)) <= maximumOffset
    }

    /// The changes a year `rule` makes (counted over its first two years), or `nil` when it is not
    /// yearly or makes more than ``maximumChangesPerYear``.
    private static func changesPerYear(_ rule: icalrecurrencetype, from start: icaltimetype) -> Int? {
        guard rule.freq == ICAL_YEARLY_RECURRENCE else { return nil }
        LibicalSetup.once()
        guard let iterator = icalrecur_iterator_new(rule, start) else { return nil }
        defer { icalrecur_iterator_free(iterator) }
        var count = 0
        while count <= 2 * maximumChangesPerYear {
            let next = icalrecur_iterator_next(iterator)
            guard icaltime_is_null_time(next) == 0, next.year <= start.year + 1 else { break }
            count += 1
        }
        guard count <= 2 * maximumChangesPerYear else { return nil }
        return max((count + 1) / 2, 1)
    }
}
