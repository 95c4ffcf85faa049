import CLibical
import Jansson
import SwitchboardCore

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
/// description, locations or participants keeps the event's.
///
/// Nothing is lost unsaid: a VEVENT that cannot be taken whole (one without END, a property it
/// needs that libical cannot read, a rule switchboard cannot repeat) is reported by its position
/// and line and the rest kept; one imported without a line or parameter libical could not read, or
/// taken otherwise than the file says (an EXRULE left out, RANGE=THISANDFUTURE for its occurrence
/// alone, a repeating event in a VTIMEZONE kept in UTC), is reported too; a cancelled one
/// (STATUS:CANCELLED) is not imported, and a cancelled occurrence is excluded. A reason names the
/// kind of problem, never the file's text or a UID.
enum ICalendarReader {
    struct Problem: Sendable, Equatable {
        /// The VEVENT's position among the file's VEVENTs, from 0.
        var index: Int
        /// The line its BEGIN:VEVENT is on, from 1.
        var line: Int?
        var reason: String
    }

    struct Outcome: Sendable {
        var events: [CalendarEvent]
        var problems: [Problem]
    }

    /// The text has no BEGIN:VCALENDAR line: it is not iCalendar at all.
    struct NotICalendar: Error {}

    static func read(_ text: String) throws(NotICalendar) -> Outcome {
        let outline = ICalendarOutline(text)
        guard outline.hasCalendar else { throw NotICalendar() }
        LibicalSetup.once()
        var problems = outline.broken.map { Problem(index: $0.place.index, line: $0.place.line, reason: $0.reason) }
        guard let root = icalparser_parse_string(outline.text) else {
            problems += outline.events.map { Problem(index: $0.index, line: $0.line, reason: "the file cannot be read around it; the event is not imported") }
            return Outcome(events: [], problems: inFileOrder(problems))
        }
        defer { icalcomponent_free(root) }
        VTimezoneBounds.removeUnbounded(from: root)
        var components: [OpaquePointer] = []
        forEachEvent(in: root) { components.append($0) }
        // The outline and libical see the same VEVENTs; should they not, positions are libical's.
        let places = components.count == outline.events.count
            ? outline.events.map { Optional($0) } : components.indices.map { _ in nil as ICalendarOutline.Place? }
        // UIDs compared by their bytes, as the stores compare event ids.
        var masters: [CalendarEvent] = [], order: [ExactID: Int] = [:], positions: [Int] = []
        // The UIDs of cancelled events (STATUS:CANCELLED), which are not imported.
        var cancelled = Set<ExactID>()
        var exceptions: [(place: (index: Int, line: Int?), uid: String, component: OpaquePointer)] = []
        for (position, component) in components.enumerated() {
            if Task.isCancelled { break }  // the caller answers -32800
            let place = (index: places[position]?.index ?? position, line: places[position]?.line)
            func report(_ reason: String) { problems.append(Problem(index: place.index, line: place.line, reason: reason)) }
            let isException = icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY) != nil
            let refusal = isException ? "; the occurrence is not changed" : "; the event is not imported"
            let unread = unreadable(component)
            if let name = unread.needed {
                report("its \(name) cannot be read" + refusal)
                continue
            }
            let uid = icalcomponent_get_uid(component).map { String(cString: $0) }
            guard let uid, EventID.isValid(uid) else {
                report("no UID (or one longer than 255 bytes, or with a control character)" + refusal)
                continue
            }
            if let leftOut = unread.leftOut { report("left out what cannot be read (\(leftOut)); the rest is imported") }
            if isException {
                exceptions.append((place, uid, component))
                continue
            }
            if icalcomponent_get_status(component) == ICAL_STATUS_CANCELLED {
                // A cancelled meeting is not one to show; one imported before under the UID is left as it is.
                report("the event is cancelled (STATUS:CANCELLED); it is not imported")
                cancelled.insert(ExactID(uid))
                continue
            }
            do {
                var notes: [String] = []
                let event = try event(component, uid: uid, notes: &notes)
                try EventValidation.check(event, prefix: "")
                notes.forEach(report)
                if let known = order[ExactID(uid)] {
                    masters[known] = event
                    report("the UID of VEVENT \(positions[known]) again: this one replaces it")
                } else {
                    order[ExactID(uid)] = masters.count
                    masters.append(event)
                    positions.append(place.index)
                }
            } catch {
                report(reason(error) + refusal)
            }
        }
        // Where each changed occurrence came from: the event's position and the occurrence's original start.
        var changed: [String: Int] = [:]
        for exception in exceptions {
            func report(_ reason: String) { problems.append(Problem(index: exception.place.index, line: exception.place.line, reason: reason)) }
            guard let position = order[ExactID(exception.uid)] else {
                report(cancelled.contains(ExactID(exception.uid))
                       ? "its recurring event is cancelled (STATUS:CANCELLED); the occurrence is not imported"
                       : "RECURRENCE-ID without its recurring event; the occurrence is not imported")
                continue
            }
            do {
                var notes: [String] = []
                let key = try applyException(exception.component, to: &masters[position], notes: &notes)
                let slot = "\(position) \(key)"
                if let earlier = changed[slot] { report("the RECURRENCE-ID of VEVENT \(earlier) again: this one replaces it") }
                changed[slot] = exception.place.index
                notes.forEach(report)
            } catch {
                report(reason(error) + "; the occurrence is not changed")
            }
        }
        return Outcome(events: masters, problems: inFileOrder(problems))
    }

    /// `problems` by VEVENT position, those of one VEVENT in the order they were found.
    private static func inFileOrder(_ problems: [Problem]) -> [Problem] {
        problems.enumerated().sorted { ($0.element.index, $0.offset) < ($1.element.index, $1.offset) }.map(\.element)
    }

    struct Refusal: Error {
        var reason: String
    }

    /// Why an event was refused, without the file's text (a field error names the member and what it
    /// expects, not the value).
    private static func reason(_ error: any Error) -> String {
        switch error {
        case let refusal as Refusal: refusal.reason
        case is RecurrenceRule.RRULEProblem: "its RRULE is not one switchboard repeats (yearly, monthly, weekly or daily; no BYSECOND, RSCALE or SKIP)"
        case let field as JSONFieldError: "\(field.field.isEmpty ? "event" : field.field): expected \(field.expected)"
        default: "an event switchboard cannot take"
        }
    }

    /// The properties an event needs: libical failing to read one of them refuses the VEVENT.
    private static let needed: Set<String> = ["UID", "DTSTART", "DTEND", "DURATION", "RRULE", "EXDATE", "RDATE", "RECURRENCE-ID"]

    /// The properties an event is imported without when libical cannot read them, named in the report.
    private static let named: Set<String> = ["SUMMARY", "DESCRIPTION", "LOCATION", "ORGANIZER", "ATTENDEE"]

    /// Texts an empty value leaves as they are: libical drops `DESCRIPTION:` saying "No value for
    /// DESCRIPTION property", which is read as an empty text.
    private static let emptyTexts: Set<String> = ["SUMMARY", "DESCRIPTION", "LOCATION"]

    /// What libical could not read in `component` (its X-LIC-ERROR properties): the first ``needed``
    /// property it removed, or else what it left out (`an ATTENDEE`, `a line or parameter`), if anything.
    private static func unreadable(_ component: OpaquePointer) -> (needed: String?, leftOut: String?) {
        var names: [String] = [], other = false
        for (name, empty) in libicalErrors(component) where !(empty && emptyTexts.contains(name ?? "")) {
            if let name, needed.contains(name) { return (name, nil) }
            if let name, named.contains(name) { if !names.contains(name) { names.append(name) } } else { other = true }
        }
        let parts = names.map { ($0.first == "A" || $0.first == "O" ? "an " : "a ") + $0 } + (other ? ["a line or parameter"] : [])
        return (nil, parts.isEmpty ? nil : parts.joined(separator: ", "))
    }

    /// The property each X-LIC-ERROR of `component` names, and whether it says the value was empty.
    /// Only libical's words before "property" are looked at (they name the property); the file's text
    /// after them is not.
    private static func libicalErrors(_ component: OpaquePointer) -> [(name: String?, empty: Bool)] {
        var result: [(name: String?, empty: Bool)] = []
        var property = icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY)
        while let current = property {
            property = icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)
            let message = text(icalproperty_get_xlicerror(current)) ?? ""
            // "Can't parse as RECUR value in RRULE property. Removing entire property: …", "No value for ORGANIZER property. …"
            let words = message.prefix(120).split(separator: " ")
            let end = words.firstIndex { $0.hasPrefix("property") }
            let name = end.flatMap { $0 > 0 ? String(words[$0 - 1]) : nil }
            result.append((name, message.hasPrefix("No value for ")))
        }
        return result
    }

    /// Each VEVENT in file order, inside a VCALENDAR or not (libical puts several calendars in an XROOT);
    /// the recursion is as deep as the components, which ``ICalendarOutline`` bounds.
    private static func forEachEvent(in component: OpaquePointer, _ body: (OpaquePointer) -> Void) {
        if icalcomponent_isa(component) == ICAL_VEVENT_COMPONENT { return body(component) }
        var child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT)
        while let current = child {
            forEachEvent(in: current, body)
            child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)
        }
    }

    /// A VEVENT without RECURRENCE-ID as an event.
    private static func event(_ component: OpaquePointer, uid: String, notes: inout [String]) throws -> CalendarEvent {
        guard let startProperty = icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY) else {
            throw Refusal(reason: "no DTSTART")
        }
        let start = try ZonedTime(startProperty, icalproperty_get_dtstart(startProperty))
        var event = CalendarEvent(id: uid, title: text(component, ICAL_SUMMARY_PROPERTY) ?? "", start: start.wall,
                                  timeZone: start.isDate ? nil : start.zone?.identifier, duration: .zero, showWithoutTime: start.isDate)
        event.description = text(component, ICAL_DESCRIPTION_PROPERTY)
        event.locations = locations(locationNames(component))
        event.duration = try duration(component, start: start)
        event.participants = ICalendarParticipants.read(component)
        var rules: [RecurrenceRule] = []
        var overrides: [String: EventOverride] = [:]
        try forEachProperty(component, ICAL_RRULE_PROPERTY) { property in
            var recurrence = icalproperty_get_rrule(property)
            guard let text = ICalendarText.taking(icalrecurrencetype_as_string_r(&recurrence)) else {
                throw Refusal(reason: "its RRULE cannot be read")
            }
            rules.append(try RecurrenceRule(rrule: text) { instant in start.zone.map { $0.local(at: instant) } ?? LocalDateTime(seconds: instant) })
        }
        try forEachProperty(component, ICAL_EXDATE_PROPERTY) { property in
            let excluded = try ZonedTime(property, icalproperty_get_exdate(property)).wall(in: start)
            overrides[excluded.description] = .exclusion
        }
        try forEachProperty(component, ICAL_RDATE_PROPERTY) { property in
            let value = icalproperty_get_rdate(property)
            guard icaltime_is_null_time(value.time) == 0 else { throw Refusal(reason: "an RDATE with a PERIOD (switchboard adds occurrences by their start)") }
            let added = try ZonedTime(property, value.time).wall(in: start)
            overrides[added.description] = EventOverride()
        }
        if start.fixedFromChangingZone, !rules.isEmpty {
            // Honouring the VTIMEZONE's rules would need a zone of the file's own beside the tz database's.
            notes.append("its TZID is no tz database name, so its times are kept in UTC: its occurrences do not follow "
                         + "the daylight saving changes of the file's VTIMEZONE; the event is imported")
        }
        if icalcomponent_get_first_property(component, ICAL_EXRULE_PROPERTY) != nil {
            // RFC 5545 deprecated EXRULE; JSCalendar's excludedRecurrenceRules are not taken either.
            notes.append("left out its EXRULE, which switchboard does not take (it excludes occurrences by EXDATE); the rest is imported")
        }
        event.recurrenceRules = rules.isEmpty ? nil : rules
        event.recurrenceOverrides = overrides.isEmpty ? nil : overrides
        return event
    }

    /// A VEVENT with RECURRENCE-ID: the override of one occurrence of `master` (an exclusion when it
    /// is cancelled), whose original start is returned. What is taken otherwise than the file says
    /// goes in `notes`.
    private static func applyException(_ component: OpaquePointer, to master: inout CalendarEvent, notes: inout [String]) throws -> LocalDateTime {
        guard let idProperty = icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY),
              let startProperty = icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY) else {
            throw Refusal(reason: "an occurrence without DTSTART")
        }
        let masterStart = ZonedTime(wall: master.start, zone: master.timeZone.flatMap(ZoneRules.named), isDate: master.showWithoutTime)
        let id = try ZonedTime(idProperty, icalproperty_get_recurrenceid(idProperty))
        let key = id.isDate && !masterStart.isDate ? try occurrence(of: master, on: id.wall.date) : id.wall(in: masterStart)
        try EventValidation.stored(key, field: "RECURRENCE-ID")
        if let range = icalproperty_get_first_parameter(idProperty, ICAL_RANGE_PARAMETER), icalparameter_get_range(range) == ICAL_RANGE_THISANDFUTURE {
            notes.append("its RECURRENCE-ID has RANGE=THISANDFUTURE, which is taken for this occurrence only; the later ones are not changed")
        }
        if icalcomponent_get_status(component) == ICAL_STATUS_CANCELLED {
            // How Exchange and CalDAV servers write a cancelled occurrence: as EXDATE would.
            try setOverride(.exclusion, at: key, of: &master)
            return key
        }
        let start = try ZonedTime(startProperty, icalproperty_get_dtstart(startProperty))
        var patch = EventOverride()
        let title = text(component, ICAL_SUMMARY_PROPERTY) ?? ""
        if title != master.title { patch.title = title }
        let wall = start.wall(in: masterStart)
        if wall != key { patch.start = wall }
        let duration = try duration(component, start: start)
        if duration != master.duration { patch.duration = duration }
        if let description = text(component, ICAL_DESCRIPTION_PROPERTY), description != master.description {
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
        try setOverride(patch, at: key, of: &master)
        return key
    }

    /// `master` with `patch` as the override of the occurrence `key`.
    private static func setOverride(_ patch: EventOverride, at key: LocalDateTime, of master: inout CalendarEvent) throws {
        var overrides = master.recurrenceOverrides ?? [:]
        guard overrides[key.description] != nil || overrides.count < EventValidation.maximumOverrides else {
            throw Refusal(reason: "more than \(EventValidation.maximumOverrides) changed, added or excluded occurrences")
        }
        overrides[key.description] = patch
        master.recurrenceOverrides = overrides
    }

    /// The original start of `master`'s one occurrence on `date`, which a RECURRENCE-ID with a DATE
    /// names for an event with a time (RFC 5545 asks for the value type of DTSTART; calendars write a
    /// date all the same).
    private static func occurrence(of master: CalendarEvent, on date: CalendarDate) throws -> LocalDateTime {
        let day = date.midnight...date.midnight.adding(seconds: 86_399)
        var starts: Set<LocalDateTime> = day.contains(master.start) ? [master.start] : []
        for name in (master.recurrenceOverrides ?? [:]).keys {
            if let start = LocalDateTime(name), day.contains(start) { starts.insert(start) }
        }
        for rule in master.recurrenceRules ?? [] where starts.count < 2 {
            RecurrenceExpansion.starts(of: rule, from: master.start, in: day) { start in
                starts.insert(start)
                return starts.count < 2
            }
        }
        guard starts.count == 1, let start = starts.first else {
            throw Refusal(reason: "its RECURRENCE-ID is a date, and the event has \(starts.isEmpty ? "no occurrence" : "more than one occurrence") on it")
        }
        return start
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
        if start.isDate, let end = exclusiveEndDay(icalproperty_get_dtend(property)) {
            return EventDuration(days: max(end - start.wall.date.dayNumber, 1))
        }
        let end = try ZonedTime(property, icalproperty_get_dtend(property))
        if start.isDate { return EventDuration(days: max(end.wall.date.dayNumber - start.wall.date.dayNumber, 1)) }
        let seconds = end.instant(floatingIn: start) - start.instant(floatingIn: start)
        guard seconds >= 0 else { throw Refusal(reason: "DTEND before DTSTART") }
        return EventDuration(seconds: seconds)
    }

    /// The day number of an all-day event's DTEND (a DATE), or `nil` for another value. The end is
    /// exclusive, the day after the last, and may pass the years any time is taken in as create lets
    /// it (an event on 2199-12-31 ends on 2200-01-01; one of `P3660D` from 2199 ends in 2209): read
    /// so that its export imports again.
    private static func exclusiveEndDay(_ time: icaltimetype) -> Int64? {
        let year = Int64(time.year), month = Int64(time.month), day = Int64(time.day)
        guard time.is_date != 0, (LocalDateTime.years.lowerBound...(LocalDateTime.years.upperBound + longestSpanInYears)).contains(year),
              (1...12).contains(month), (1...Timestamp.daysIn(month: month, year: year)).contains(day) else { return nil }
        return Timestamp.days(fromCivil: year, month, day)
    }

    /// How many years past the last year a start may have an end may fall in (a duration is at most
    /// ``EventDuration/maximumDays``).
    private static let longestSpanInYears = EventDuration.maximumDays / 365 + 1

    /// LOCATION, then each X-SWITCHBOARD-LOCATION (what ``ICalendarWriter`` writes for further locations).
    private static func locationNames(_ component: OpaquePointer) -> [String] {
        var names: [String] = []
        if let location = text(component, ICAL_LOCATION_PROPERTY), !location.isEmpty { names.append(location) }
        forEachProperty(component, ICAL_X_PROPERTY) { property in
            guard let name = text(icalproperty_get_x_name(property)), name.uppercased() == ICalendarText.extraLocation,
                  let value = icalproperty_get_value(property) else { return }
            let location = icalvalue_isa(value) == ICAL_TEXT_VALUE ? text(icalvalue_get_text(value)) : text(icalvalue_get_x(value))
            if let location, !location.isEmpty { names.append(ICalendarCarriageReturns.restore(location, of: property)) }
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

    /// The text of `component`'s first `kind` property (SUMMARY, DESCRIPTION, LOCATION), its carriage returns put back.
    private static func text(_ component: OpaquePointer, _ kind: icalproperty_kind) -> String? {
        guard let property = icalcomponent_get_first_property(component, kind) else {
            let name = text(icalproperty_kind_to_string(kind))
            return libicalErrors(component).contains { $0.empty && $0.name == name } ? "" : nil
        }
        guard let value = icalproperty_get_value(property), let text = text(icalvalue_get_text(value)) else { return nil }
        return ICalendarCarriageReturns.restore(text, of: property)
    }
}
