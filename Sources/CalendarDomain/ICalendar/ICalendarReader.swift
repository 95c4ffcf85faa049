import CLibical
import Jansson

/// Reads iCalendar text (RFC 5545, as Thunderbird, Apple Calendar or Google export it) into
/// JSCalendar events, through libical's parser.
///
/// Each VEVENT with a UID becomes an event; a VEVENT with a RECURRENCE-ID becomes an override of
/// its master. DTSTART's TZID names the zone (IANA names, also behind a prefix such as
/// `/mozilla.org/20050126_1/Europe/Berlin`, or a Windows name as Outlook writes them, such as
/// `W. Europe Standard Time`: ``WindowsZones``); any other TZID is converted to UTC through the
/// file's VTIMEZONE. EXDATE become excluded overrides, RDATE added ones; ATTENDEE and ORGANIZER
/// participants with their roles (``ICalendarParticipants``); LOCATION the first location and each
/// X-SWITCHBOARD-LOCATION one more. An occurrence's VEVENT overrides the title, start, duration,
/// description, locations and participants that differ from its event's; one without a
/// description, locations or participants keeps the event's. A VEVENT that cannot be taken is
/// reported by its position and the rest kept.
enum ICalendarReader {
    struct Problem: Sendable, Equatable, Encodable {
        /// The VEVENT's position in the file, from 0.
        var index: Int
        var uid: String?
        var reason: String
    }

    struct Outcome: Sendable {
        var events: [CalendarEvent]
        var problems: [Problem]
    }

    static func read(_ text: String) -> Outcome {
        LibicalSetup.once()
        guard let root = icalparser_parse_string(text) else { return Outcome(events: [], problems: []) }
        defer { icalcomponent_free(root) }
        VTimezoneBounds.removeUnbounded(from: root)
        var masters: [CalendarEvent] = [], order: [String: Int] = [:], problems: [Problem] = []
        var exceptions: [(index: Int, uid: String, component: OpaquePointer)] = []
        var index = 0
        forEachEvent(in: root) { component in
            defer { index += 1 }
            if Task.isCancelled { return }  // the caller answers -32800
            let uid = icalcomponent_get_uid(component).map { String(cString: $0) }
            guard let uid, EventID.isValid(uid) else {
                problems.append(Problem(index: index, uid: uid, reason: "no UID (or one longer than 255 bytes, or with a control character)"))
                return
            }
            if icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY) != nil {
                exceptions.append((index, uid, component))
                return
            }
            do {
                let event = try event(component, uid: uid)
                try EventValidation.check(event, prefix: "")
                if let known = order[uid] { masters[known] = event } else { order[uid] = masters.count; masters.append(event) }
            } catch {
                problems.append(Problem(index: index, uid: uid, reason: reason(error)))
            }
        }
        for exception in exceptions {
            guard let position = order[exception.uid] else {
                problems.append(Problem(index: exception.index, uid: exception.uid, reason: "RECURRENCE-ID without its recurring event"))
                continue
            }
            do {
                try applyException(exception.component, to: &masters[position])
            } catch {
                problems.append(Problem(index: exception.index, uid: exception.uid, reason: reason(error)))
            }
        }
        return Outcome(events: masters, problems: problems)
    }

    struct Refusal: Error {
        var reason: String
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let refusal as Refusal: refusal.reason
        case let problem as RecurrenceRule.RRULEProblem: problem.reason
        case let field as JSONFieldError: field.description
        default: "\(error)"
        }
    }

    private static func forEachEvent(in root: OpaquePointer, _ body: (OpaquePointer) -> Void) {
        if icalcomponent_isa(root) == ICAL_VEVENT_COMPONENT { return body(root) }
        var component = icalcomponent_get_first_component(root, ICAL_VEVENT_COMPONENT)
        while let current = component {
            body(current)
            component = icalcomponent_get_next_component(root, ICAL_VEVENT_COMPONENT)
        }
    }

    /// A VEVENT without RECURRENCE-ID as an event.
    private static func event(_ component: OpaquePointer, uid: String) throws -> CalendarEvent {
        guard let startProperty = icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY) else {
            throw Refusal(reason: "no DTSTART")
        }
        let start = try ZonedTime(startProperty, icalproperty_get_dtstart(startProperty))
        var event = CalendarEvent(id: uid, title: text(icalcomponent_get_summary(component)) ?? "", start: start.wall,
                                  timeZone: start.isDate ? nil : start.zone?.identifier, duration: .zero, showWithoutTime: start.isDate)
        event.description = text(icalcomponent_get_description(component))
        event.locations = locations(locationNames(component))
        event.duration = try duration(component, start: start)
        event.participants = ICalendarParticipants.read(component)
        var rules: [RecurrenceRule] = []
        var overrides: [String: EventOverride] = [:]
        try forEachProperty(component, ICAL_RRULE_PROPERTY) { property in
            var recurrence = icalproperty_get_rrule(property)
            if let text = ICalendarText.taking(icalrecurrencetype_as_string_r(&recurrence)) {
                rules.append(try RecurrenceRule(rrule: text) { instant in start.zone.map { $0.local(at: instant) } ?? LocalDateTime(seconds: instant) })
            }
        }
        try forEachProperty(component, ICAL_EXDATE_PROPERTY) { property in
            let excluded = try ZonedTime(property, icalproperty_get_exdate(property)).wall(in: start)
            overrides[excluded.description] = .exclusion
        }
        try forEachProperty(component, ICAL_RDATE_PROPERTY) { property in
            let added = try ZonedTime(property, icalproperty_get_rdate(property).time).wall(in: start)
            overrides[added.description] = EventOverride()
        }
        event.recurrenceRules = rules.isEmpty ? nil : rules
        event.recurrenceOverrides = overrides.isEmpty ? nil : overrides
        return event
    }

    /// A VEVENT with RECURRENCE-ID: the override of one occurrence of `master`.
    private static func applyException(_ component: OpaquePointer, to master: inout CalendarEvent) throws {
        guard let idProperty = icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY),
              let startProperty = icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY) else {
            throw Refusal(reason: "an occurrence without DTSTART")
        }
        let masterStart = ZonedTime(wall: master.start, zone: master.timeZone.flatMap(ZoneRules.named), isDate: master.showWithoutTime)
        let key = try ZonedTime(idProperty, icalproperty_get_recurrenceid(idProperty)).wall(in: masterStart)
        let start = try ZonedTime(startProperty, icalproperty_get_dtstart(startProperty))
        var patch = EventOverride()
        let title = text(icalcomponent_get_summary(component)) ?? ""
        if title != master.title { patch.title = title }
        let wall = start.wall(in: masterStart)
        if wall != key { patch.start = wall }
        let duration = try duration(component, start: start)
        if duration != master.duration { patch.duration = duration }
        if let description = text(icalcomponent_get_description(component)), description != master.description {
            patch.description = description
        }
        let names = locationNames(component)
        if !names.isEmpty, names != ICalendarText.inKeyOrder(master.locations ?? [:]).map(\.name) {
            patch.locations = locations(names)
        }
        if let participants = ICalendarParticipants.read(component), participants != master.participants {
            patch.participants = participants
        }
        try EventValidation.check(patch, key: key.description, allDay: master.showWithoutTime, prefix: "")
        var overrides = master.recurrenceOverrides ?? [:]
        guard overrides[key.description] != nil || overrides.count < EventValidation.maximumOverrides else {
            throw Refusal(reason: "more than \(EventValidation.maximumOverrides) changed, added or excluded occurrences")
        }
        overrides[key.description] = patch
        master.recurrenceOverrides = overrides
    }

    /// DURATION, else DTEND minus DTSTART (days for dates, exact seconds for times), else none (a day when all-day).
    private static func duration(_ component: OpaquePointer, start: ZonedTime) throws -> EventDuration {
        if let property = icalcomponent_get_first_property(component, ICAL_DURATION_PROPERTY) {
            let value = icalproperty_get_duration(property)
            guard value.is_neg == 0 else { throw Refusal(reason: "a negative DURATION") }
            return EventDuration(days: Int64(value.weeks) * 7 + Int64(value.days),
                                 seconds: Int64(value.hours) * 3600 + Int64(value.minutes) * 60 + Int64(value.seconds))
        }
        guard let property = icalcomponent_get_first_property(component, ICAL_DTEND_PROPERTY) else {
            return start.isDate ? EventDuration(days: 1) : .zero
        }
        let end = try ZonedTime(property, icalproperty_get_dtend(property))
        if start.isDate { return EventDuration(days: max(end.wall.date.dayNumber - start.wall.date.dayNumber, 1)) }
        let seconds = end.instant(floatingIn: start) - start.instant(floatingIn: start)
        guard seconds >= 0 else { throw Refusal(reason: "DTEND before DTSTART") }
        return EventDuration(seconds: seconds)
    }

    /// LOCATION, then each X-SWITCHBOARD-LOCATION (what ``ICalendarWriter`` writes for further locations).
    private static func locationNames(_ component: OpaquePointer) -> [String] {
        var names: [String] = []
        if let location = text(icalcomponent_get_location(component)), !location.isEmpty { names.append(location) }
        forEachProperty(component, ICAL_X_PROPERTY) { property in
            guard let name = text(icalproperty_get_x_name(property)), name.uppercased() == ICalendarText.extraLocation,
                  let value = icalproperty_get_value(property) else { return }
            let location = icalvalue_isa(value) == ICAL_TEXT_VALUE ? text(icalvalue_get_text(value)) : text(icalvalue_get_x(value))
            if let location, !location.isEmpty { names.append(location) }
        }
        return names
    }

    /// `names` as locations `l1`, `l2`, …; `nil` when there are none.
    private static func locations(_ names: [String]) -> [String: Location]? {
        guard !names.isEmpty else { return nil }
        var result: [String: Location] = [:]
        for (index, name) in names.enumerated() { result["l\(index + 1)"] = Location(name: name) }
        return result
    }

    private static func forEachProperty(_ component: OpaquePointer, _ kind: icalproperty_kind, _ body: (OpaquePointer) throws -> Void) rethrows {
        var property = icalcomponent_get_first_property(component, kind)
        while let current = property {
            try body(current)
            property = icalcomponent_get_next_property(component, kind)
        }
    }

    static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
