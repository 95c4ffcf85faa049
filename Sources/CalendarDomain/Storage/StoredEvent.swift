import SwitchboardCore

/// Reads a stored event — the JSON ``EventRow/encode(_:)`` writes — straight from its text, member by
/// member, with no `Decoder` and no JSON tree (``StoredJSONReader``): Codable's containers, keys and
/// first-use look-ups of each generic type, then jansson's parse, were most of a fresh process's
/// first agenda. Backend-neutral: any store that keeps the body text hands it here.
///
/// Members it does not know are skipped and a `null` optional member is absent, as the `Codable`
/// conformances read them; of a member given twice, the last counts, as jansson keeps it. A
/// body that is not such an event (a damaged file) throws ``ServiceError/serviceFailure(debugId:cause:)``,
/// its cause naming the member and the kind of value found, or where the text stops being JSON,
/// never the text (the client gets the debug id, the log the cause); it never traps.
enum StoredEvent {
    static func decode(_ body: String) throws -> CalendarEvent {
        var body = body
        return try body.withUTF8(decode(bytes:))
    }

    /// The event of a body's UTF-8 bytes, which need not be valid UTF-8: the reader checks.
    static func decode(bytes: UnsafeBufferPointer<UInt8>) throws -> CalendarEvent {
        var reader = StoredJSONReader(bytes)
        do {
            let event = try self.event(&reader)
            try reader.end()
            return event
        } catch let problem as Problem {
            throw problem.serviceError
        } catch let notJSON as StoredJSONReader.NotJSON {
            throw ServiceError.serviceFailure(debugId: DebugID.make(),
                                              cause: "stored calendar event: not JSON at byte \(notJSON.offset): \(notJSON.reason)")
        }
    }

    private static func event(_ reader: inout StoredJSONReader) throws -> CalendarEvent {
        var id: String?, title: String?, description: String?, start: LocalDateTime?, timeZone: String?
        var duration: EventDuration?, showWithoutTime: Bool?
        var locations: [String: Location]?, participants: [String: Participant]?
        var rules: [RecurrenceRule]?, overrides: [String: EventOverride]?
        try object(&reader) { reader, name in
            switch name {
            case "id": id = try member(name, &reader, string)
            case "title": title = try member(name, &reader, string)
            case "description": description = try optional(name, &reader, string)
            case "start": start = try member(name, &reader, localDateTime)
            case "timeZone": timeZone = try optional(name, &reader, string)
            case "duration": duration = try member(name, &reader, self.duration)
            case "showWithoutTime": showWithoutTime = try member(name, &reader, bool)
            case "locations": locations = try optional(name, &reader) { try map(&$0, location) }
            case "participants": participants = try optional(name, &reader) { try map(&$0, participant) }
            case "recurrenceRules": rules = try optional(name, &reader) { try array(&$0, rule) }
            case "recurrenceOverrides": overrides = try optional(name, &reader) { try map(&$0, override) }
            default: try reader.skipValue()
            }
        }
        return CalendarEvent(
            id: try required("id", id), title: try required("title", title), description: description,
            start: try required("start", start), timeZone: timeZone, duration: try required("duration", duration),
            showWithoutTime: try required("showWithoutTime", showWithoutTime), locations: locations,
            participants: participants, recurrenceRules: rules, recurrenceOverrides: overrides)
    }

    private static func location(_ reader: inout StoredJSONReader) throws -> Location {
        var name: String?
        try object(&reader) { reader, member in
            switch member {
            case "name": name = try self.member(member, &reader, string)
            case "@type": try checkType(&reader, is: "Location")
            default: try reader.skipValue()
            }
        }
        return Location(name: try required("name", name))
    }

    private static func participant(_ reader: inout StoredJSONReader) throws -> Participant {
        var participant = Participant()
        try object(&reader) { reader, name in
            switch name {
            case "name": participant.name = try optional(name, &reader, string)
            case "email": participant.email = try optional(name, &reader, string)
            case "roles": participant.roles = try optional(name, &reader) { try map(&$0, bool) }
            case "@type": try checkType(&reader, is: "Participant")
            default: try reader.skipValue()
            }
        }
        return participant
    }

    private static func override(_ reader: inout StoredJSONReader) throws -> EventOverride {
        var patch = EventOverride()
        try object(&reader) { reader, name in
            switch name {
            case "excluded": patch.excluded = try optional(name, &reader, bool)
            case "title": patch.title = try optional(name, &reader, string)
            case "description": patch.description = try optional(name, &reader, string)
            case "start": patch.start = try optional(name, &reader, localDateTime)
            case "duration": patch.duration = try optional(name, &reader, duration)
            case "locations": patch.locations = try optional(name, &reader) { try map(&$0, location) }
            case "participants": patch.participants = try optional(name, &reader) { try map(&$0, participant) }
            default: try reader.skipValue()
            }
        }
        return patch
    }

    private static func rule(_ reader: inout StoredJSONReader) throws -> RecurrenceRule {
        var frequency: RecurrenceRule.Frequency?
        var rule = RecurrenceRule(frequency: .daily)
        let ints = { (reader: inout StoredJSONReader) in try array(&reader, int) }
        try object(&reader) { reader, name in
            switch name {
            case "frequency": frequency = try member(name, &reader) { try raw(RecurrenceRule.Frequency.self, &$0) }
            case "interval": rule.interval = try optional(name, &reader, int)
            case "firstDayOfWeek": rule.firstDayOfWeek = try optional(name, &reader) { try raw(RecurrenceRule.Weekday.self, &$0) }
            case "byDay": rule.byDay = try optional(name, &reader) { try array(&$0, nDay) }
            case "byMonthDay": rule.byMonthDay = try optional(name, &reader, ints)
            case "byMonth": rule.byMonth = try optional(name, &reader) { try array(&$0, string) }
            case "byYearDay": rule.byYearDay = try optional(name, &reader, ints)
            case "byWeekNo": rule.byWeekNo = try optional(name, &reader, ints)
            case "byHour": rule.byHour = try optional(name, &reader, ints)
            case "byMinute": rule.byMinute = try optional(name, &reader, ints)
            case "bySetPosition": rule.bySetPosition = try optional(name, &reader, ints)
            case "count": rule.count = try optional(name, &reader, int)
            case "until": rule.until = try optional(name, &reader, localDateTime)
            case "@type": try checkType(&reader, is: "RecurrenceRule")
            default: try reader.skipValue()
            }
        }
        rule.frequency = try required("frequency", frequency)
        return rule
    }

    private static func nDay(_ reader: inout StoredJSONReader) throws -> RecurrenceRule.NDay {
        var day: RecurrenceRule.Weekday?, nth: Int?
        try object(&reader) { reader, name in
            switch name {
            case "day": day = try member(name, &reader) { try raw(RecurrenceRule.Weekday.self, &$0) }
            case "nthOfPeriod": nth = try optional(name, &reader, int)
            case "@type": try checkType(&reader, is: "NDay")
            default: try reader.skipValue()
            }
        }
        return RecurrenceRule.NDay(day: try required("day", day), nthOfPeriod: nth)
    }

    // MARK: Members

    /// Reads an object's members with `member` (which reads or skips each value). Of a member given
    /// twice the last counts, as jansson keeps it: a problem in a value is thrown only once the object
    /// is read, if no later member of that name (byte for byte, as jansson compares) was read well.
    private static func object(_ reader: inout StoredJSONReader, _ member: (inout StoredJSONReader, String) throws -> Void) throws {
        guard reader.isObjectAhead else { throw Problem("an object", found: reader.kindAhead) }
        var problems: [(name: String, problem: Problem)] = []
        try reader.members { reader, name in
            let mark = reader.mark
            do {
                try member(&reader, name)
                if !problems.isEmpty { problems.removeAll { $0.name.utf8.elementsEqual(name.utf8) } }
            } catch let problem as Problem {
                reader.rewind(to: mark)
                try reader.skipValue()
                problems.removeAll { $0.name.utf8.elementsEqual(name.utf8) }
                problems.append((name, problem))
            }
        }
        if let first = problems.first { throw first.problem }
    }

    /// The value of member `name`, read by `read`; a problem in it is reported at `name`.
    private static func member<T>(_ name: String, _ reader: inout StoredJSONReader, _ read: (inout StoredJSONReader) throws -> T) throws -> T {
        do {
            return try read(&reader)
        } catch let problem as Problem {
            throw problem.at(".\(name)")
        }
    }

    /// As ``member(_:_:_:)``, `nil` for `null`.
    private static func optional<T>(_ name: String, _ reader: inout StoredJSONReader,
                                    _ read: (inout StoredJSONReader) throws -> T) throws -> T? {
        if try reader.takeNull() { return nil }
        return try member(name, &reader, read)
    }

    /// A required member's value, or the problem of its absence.
    private static func required<T>(_ name: String, _ value: T?) throws -> T {
        guard let value else { throw Problem("a member", found: "nothing").at(".\(name)") }
        return value
    }

    // MARK: Values

    private static func string(_ reader: inout StoredJSONReader) throws -> String {
        try string(&reader, expected: "a string")
    }

    private static func bool(_ reader: inout StoredJSONReader) throws -> Bool {
        guard let value = try reader.bool() else { throw Problem("a boolean", found: reader.kindAhead) }
        return value
    }

    private static func int(_ reader: inout StoredJSONReader) throws -> Int {
        guard let value = try reader.integer(), let int = Int(exactly: value) else { throw Problem("an integer", found: reader.kindAhead) }
        return int
    }

    private static func localDateTime(_ reader: inout StoredJSONReader) throws -> LocalDateTime {
        guard let value = LocalDateTime(try string(&reader, expected: LocalDateTime.expected)) else {
            throw Problem(LocalDateTime.expected, found: "another string")
        }
        return value
    }

    private static func duration(_ reader: inout StoredJSONReader) throws -> EventDuration {
        guard case .success(let value) = EventDuration.parse(try string(&reader, expected: EventDuration.expected)) else {
            throw Problem(EventDuration.expected, found: "another string")
        }
        return value
    }

    private static func raw<T: RawRepresentable<String>>(_ type: T.Type, _ reader: inout StoredJSONReader) throws -> T {
        guard let value = T(rawValue: try string(&reader, expected: "a \(T.self) name")) else {
            throw Problem("a \(T.self) name", found: "another string")
        }
        return value
    }

    /// A string, for a value written as one (`expected` says what it should be).
    private static func string(_ reader: inout StoredJSONReader, expected: String) throws -> String {
        guard let text = try reader.string() else { throw Problem(expected, found: reader.kindAhead) }
        return text
    }

    private static func array<T>(_ reader: inout StoredJSONReader, _ element: (inout StoredJSONReader) throws -> T) throws -> [T] {
        guard reader.isArrayAhead else { throw Problem("an array", found: reader.kindAhead) }
        var values: [T] = []
        try reader.elements { reader, index in
            do {
                values.append(try element(&reader))
            } catch let problem as Problem {
                throw problem.at("[\(index)]")
            }
        }
        return values
    }

    /// A map's entries; a problem in one is reported at its position (`[2]`), not its key, which is
    /// text of the file.
    private static func map<T>(_ reader: inout StoredJSONReader, _ element: (inout StoredJSONReader) throws -> T) throws -> [String: T] {
        var values: [String: T] = [:]
        var position = 0
        try object(&reader) { reader, key in
            defer { position += 1 }
            do {
                values[key] = try element(&reader)
            } catch let problem as Problem {
                throw problem.at("[\(position)]")
            }
        }
        return values
    }

    /// JSCalendar's `@type` (``JSCalendarType``): absent, `null` or `type`.
    private static func checkType(_ reader: inout StoredJSONReader, is type: String) throws {
        if try reader.takeNull() { return }
        let expected = "\"\(type)\" or no @type"
        try member("@type", &reader) { reader in
            guard try string(&reader, expected: expected) == type else { throw Problem(expected, found: "another string") }
        }
    }

    /// What is wrong with a stored body, and where (the path is built on the way out, so reading a
    /// good body builds none).
    private struct Problem: Error {
        var path = ""
        var expected: String
        var found: String

        init(_ expected: String, found: String) {
            self.expected = expected
            self.found = found
        }

        /// The problem one level out: `step` is `.name` or `[index]`.
        func at(_ step: String) -> Problem {
            var outer = self
            outer.path = step + path
            return outer
        }

        /// What `decode` throws: the member's path and the kind of value found, no text of the body.
        var serviceError: ServiceError {
            let member = path.hasPrefix(".") ? String(path.dropFirst()) : path
            return .serviceFailure(debugId: DebugID.make(),
                                   cause: "stored calendar event\(member.isEmpty ? "" : " member \(member)"): expected \(expected), found \(found)")
        }
    }
}
