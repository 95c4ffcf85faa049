import CLibical
import Synchronization

/// Writes events as iCalendar text (RFC 5545) through libical, for Thunderbird, Apple Calendar,
/// Google and back into switchboard (``ICalendarReader``).
///
/// One VEVENT per event with UID, DTSTAMP, SUMMARY, DESCRIPTION, LOCATION (the first location; any
/// further ones as X-SWITCHBOARD-LOCATION; carriage returns in texts as ``ICalendarCarriageReturns``),
/// DTSTART (TZID, floating, or VALUE=DATE all-day), DTEND for all-day events and DURATION otherwise,
/// RRULE (UNTIL in UTC when the start has a zone, as RFC 5545 asks), EXDATE for excluded occurrences,
/// RDATE for added ones, ORGANIZER and ATTENDEE with their roles (``ICalendarParticipants``); and one
/// VEVENT with RECURRENCE-ID per changed occurrence, holding everything the occurrence has (its own
/// participants, or the event's). Each zone used gets its VTIMEZONE.
enum ICalendarWriter {
    static func write(_ events: [CalendarEvent], stamp: Int64) -> String {
        LibicalSetup.once()
        guard let calendar = icalcomponent_new(ICAL_VCALENDAR_COMPONENT) else { return "" }
        defer { icalcomponent_free(calendar) }
        icalcomponent_add_property(calendar, icalproperty_new_version("2.0"))
        icalcomponent_add_property(calendar, icalproperty_new_prodid("-//switchboard//calendar//EN"))
        var zones = Set<String>()
        var components: [OpaquePointer] = []
        for event in events {
            if let zone = event.timeZone { zones.insert(zone) }
            components.append(contentsOf: self.components(event, stamp: stamp))
        }
        for zone in zones.sorted() { timezoneComponent(zone).map { icalcomponent_add_component(calendar, $0) } }
        for component in components { icalcomponent_add_component(calendar, component) }
        return ICalendarText.taking(icalcomponent_as_ical_string_r(calendar)) ?? ""
    }

    /// The VEVENTs of one event: the master, then one per changed occurrence.
    private static func components(_ event: CalendarEvent, stamp: Int64) -> [OpaquePointer] {
        guard let master = vevent(event, start: event.start, duration: event.duration, title: event.title,
                                  description: event.description, locations: event.locations, stamp: stamp) else { return [] }
        var result = [master]
        ICalendarParticipants.add(event.participants, to: master)
        for rule in event.recurrenceRules ?? [] {
            var rule = rule
            // RFC 5545: with a zoned DTSTART, UNTIL is in UTC.
            if let until = rule.until, let zone = event.timeZone.flatMap(ZoneRules.named) {
                rule.until = LocalDateTime(seconds: zone.instant(of: until))
            }
            var text = rule.rruleText
            if rule.until != nil, event.timeZone != nil { text = text.replacingUntilWithUTC() }
            if event.showWithoutTime { text = text.replacingUntilWithDate() }
            icalcomponent_add_property(master, icalproperty_new_rrule(icalrecurrencetype_from_string(text)))
        }
        for (key, patch) in (event.recurrenceOverrides ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let local = LocalDateTime(key) else { continue }
            let time = zonedTime(local, event: event)
            if patch.isExclusion {
                icalcomponent_add_property(master, withZone(icalproperty_new_exdate(time), event))
                continue
            }
            if patch == EventOverride() {
                var period = icaldatetimeperiodtype()
                period.time = time
                period.period = icalperiodtype_null_period()
                icalcomponent_add_property(master, withZone(icalproperty_new_rdate(period), event))
                continue
            }
            guard let occurrence = vevent(event, start: patch.start ?? local, duration: patch.duration ?? event.duration,
                                          title: patch.title ?? event.title, description: patch.description ?? event.description,
                                          locations: patch.locations ?? event.locations, stamp: stamp) else { continue }
            icalcomponent_add_property(occurrence, withZone(icalproperty_new_recurrenceid(time), event))
            ICalendarParticipants.add(patch.participants ?? event.participants, to: occurrence)
            result.append(occurrence)
        }
        return result
    }

    private static func vevent(_ event: CalendarEvent, start: LocalDateTime, duration: EventDuration, title: String,
                               description: String?, locations: [String: Location]?, stamp: Int64) -> OpaquePointer? {
        guard let component = icalcomponent_new(ICAL_VEVENT_COMPONENT) else { return nil }
        icalcomponent_add_property(component, icalproperty_new_uid(event.id))
        icalcomponent_add_property(component, icalproperty_new_dtstamp(ICalendarText.utcTime(stamp)))
        icalcomponent_add_property(component, ICalendarCarriageReturns.property(title) { icalproperty_new_summary($0) })
        if let description { icalcomponent_add_property(component, ICalendarCarriageReturns.property(description) { icalproperty_new_description($0) }) }
        addLocations(locations, to: component)
        icalcomponent_add_property(component, withZone(icalproperty_new_dtstart(zonedTime(start, event: event)), event))
        if event.showWithoutTime {
            let end = start.date.adding(days: max(duration.days, 1)).midnight
            icalcomponent_add_property(component, icalproperty_new_dtend(ICalendarText.icalTime(end, isDate: true)))
        } else {
            var value = icaldurationtype_null_duration()
            value.days = UInt32(clamping: duration.days)
            value.hours = UInt32(clamping: duration.seconds / 3600)
            value.minutes = UInt32(clamping: duration.seconds / 60 % 60)
            value.seconds = UInt32(clamping: duration.seconds % 60)
            icalcomponent_add_property(component, icalproperty_new_duration(value))
        }
        return component
    }

    private static func zonedTime(_ local: LocalDateTime, event: CalendarEvent) -> icaltimetype {
        ICalendarText.icalTime(local, isDate: event.showWithoutTime)
    }

    /// `property` with the event's TZID, when it has a zone.
    private static func withZone(_ property: OpaquePointer?, _ event: CalendarEvent) -> OpaquePointer? {
        if let property, let zone = event.timeZone, !event.showWithoutTime {
            icalproperty_add_parameter(property, icalparameter_new_tzid(zone))
        }
        return property
    }

    /// The first location (in key order, shorter keys first, as import numbers them) as LOCATION, each
    /// further one as X-SWITCHBOARD-LOCATION (libical 3.0 writes VLOCATION components wrongly, so they
    /// are not used).
    private static func addLocations(_ locations: [String: Location]?, to component: OpaquePointer) {
        for (index, location) in ICalendarText.inKeyOrder(locations ?? [:]).enumerated() {
            if index == 0 {
                icalcomponent_add_property(component, ICalendarCarriageReturns.property(location.name) { icalproperty_new_location($0) })
            } else if let property = ICalendarCarriageReturns.property(location.name, { icalproperty_new_x($0) }) {
                // An X value, not TEXT: libical 3.0 writes a TEXT one's commas unescaped and then
                // reads them as separators; an X value keeps them (backslashes and line ends escaped).
                icalproperty_set_x_name(property, ICalendarText.extraLocation)
                icalcomponent_add_property(component, property)
            }
        }
    }

    /// libical's VTIMEZONE of `name` (from the system's zoneinfo); its zone table is process-wide,
    /// so look-ups take turns.
    private static func timezoneComponent(_ name: String) -> OpaquePointer? {
        zoneLock.withLock { _ in
            guard let zone = icaltimezone_get_builtin_timezone(name), let component = icaltimezone_get_component(zone),
                  let copy = icalcomponent_new_clone(component) else { return nil }
            // libical names it "/freeassociation.sourceforge.net/Europe/Berlin"; DTSTART's TZID is the IANA name.
            if let tzid = icalcomponent_get_first_property(copy, ICAL_TZID_PROPERTY) { icalproperty_set_tzid(tzid, name) }
            return copy
        }
    }

    private static let zoneLock = Mutex(())
}

extension ICalendarText {
    /// A UTC `icaltimetype` of `milliseconds` since the epoch.
    static func utcTime(_ milliseconds: Int64) -> icaltimetype {
        icaltime_from_timet_with_zone(time_t(milliseconds / 1000), 0, icaltimezone_get_utc_timezone())
    }
}

extension String {
    /// An RRULE whose UNTIL (a UTC wall time written floating) gets its `Z`.
    fileprivate func replacingUntilWithUTC() -> String {
        split(separator: ";").map { part in part.hasPrefix("UNTIL=") && !part.hasSuffix("Z") ? part + "Z" : part }.joined(separator: ";")
    }

    /// An RRULE whose UNTIL is a DATE, as an all-day DTSTART needs.
    fileprivate func replacingUntilWithDate() -> String {
        split(separator: ";").map { part in part.hasPrefix("UNTIL=") ? part.prefix(14) : part }.joined(separator: ";")
    }
}
