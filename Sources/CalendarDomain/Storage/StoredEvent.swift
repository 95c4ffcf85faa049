import Jansson
import SwitchboardCore

/// Reads a stored event — the JSON ``EventRow/encode(_:)`` writes — straight from jansson's values,
/// member by member, without a `Decoder`: Codable's containers, keys and first-use look-ups of each
/// generic type were most of a fresh process's first agenda. Backend-neutral: any store that keeps
/// the body text hands it here.
///
/// Members it does not know are ignored and a `null` optional member is absent, as the `Codable`
/// conformances read them. A body that is not such an event (a damaged file) throws
/// ``ServiceError/serviceFailure(debugId:cause:)``, its cause naming the member and the kind of value
/// found, never the text (the client gets the debug id, the log the cause); it never traps.
enum StoredEvent {
    static func decode(_ body: String) throws -> CalendarEvent {
        let value: JanssonValue
        do {
            value = try JSONParser.parse(body.utf8)
        } catch {
            throw ServiceError.serviceFailure(debugId: DebugID.make(), cause: "stored calendar event: \(error.descriptionWithoutText)")
        }
        do {
            return try withExtendedLifetime(value) { try event(Members(value.view)) }
        } catch let problem as Problem {
            throw problem.serviceError
        }
    }

    private static func event(_ event: Members) throws -> CalendarEvent {
        CalendarEvent(
            id: try event.required("id", string), title: try event.required("title", string),
            description: try event.optional("description", string), start: try event.required("start", localDateTime),
            timeZone: try event.optional("timeZone", string), duration: try event.required("duration", duration),
            showWithoutTime: try event.required("showWithoutTime", bool),
            locations: try event.optional("locations") { try map($0, location) },
            participants: try event.optional("participants") { try map($0, participant) },
            recurrenceRules: try event.optional("recurrenceRules") { try array($0, rule) },
            recurrenceOverrides: try event.optional("recurrenceOverrides") { try map($0, override) })
    }

    private static func location(_ view: JSONView) throws -> Location {
        Location(name: try Members(view).required("name", string))
    }

    private static func participant(_ view: JSONView) throws -> Participant {
        let members = try Members(view)
        return Participant(name: try members.optional("name", string), email: try members.optional("email", string),
                           roles: try members.optional("roles") { try map($0, bool) })
    }

    private static func override(_ view: JSONView) throws -> EventOverride {
        let members = try Members(view)
        return EventOverride(
            excluded: try members.optional("excluded", bool), title: try members.optional("title", string),
            description: try members.optional("description", string), start: try members.optional("start", localDateTime),
            duration: try members.optional("duration", duration),
            locations: try members.optional("locations") { try map($0, location) },
            participants: try members.optional("participants") { try map($0, participant) })
    }

    private static func rule(_ view: JSONView) throws -> RecurrenceRule {
        let rule = try Members(view)
        let ints = { (view: JSONView) in try array(view, int) }
        return RecurrenceRule(
            frequency: try rule.required("frequency") { try raw(RecurrenceRule.Frequency.self, $0) },
            interval: try rule.optional("interval", int),
            firstDayOfWeek: try rule.optional("firstDayOfWeek") { try raw(RecurrenceRule.Weekday.self, $0) },
            byDay: try rule.optional("byDay") { try array($0, nDay) },
            byMonthDay: try rule.optional("byMonthDay", ints), byMonth: try rule.optional("byMonth") { try array($0, string) },
            byYearDay: try rule.optional("byYearDay", ints), byWeekNo: try rule.optional("byWeekNo", ints),
            byHour: try rule.optional("byHour", ints), byMinute: try rule.optional("byMinute", ints),
            bySetPosition: try rule.optional("bySetPosition", ints), count: try rule.optional("count", int),
            until: try rule.optional("until", localDateTime))
    }

    private static func nDay(_ view: JSONView) throws -> RecurrenceRule.NDay {
        let members = try Members(view)
        return RecurrenceRule.NDay(day: try members.required("day") { try raw(RecurrenceRule.Weekday.self, $0) },
                                   nthOfPeriod: try members.optional("nthOfPeriod", int))
    }

    // MARK: Values

    private static func string(_ view: JSONView) throws -> String {
        guard let text = view.string else { throw Problem("a string", found: view) }
        return text
    }

    private static func bool(_ view: JSONView) throws -> Bool {
        guard let value = view.bool else { throw Problem("a boolean", found: view) }
        return value
    }

    private static func int(_ view: JSONView) throws -> Int {
        guard let value = view.int64, let int = Int(exactly: value) else { throw Problem("an integer", found: view) }
        return int
    }

    private static func localDateTime(_ view: JSONView) throws -> LocalDateTime {
        guard let value = view.string.flatMap(LocalDateTime.init) else { throw Problem(LocalDateTime.expected, found: view) }
        return value
    }

    private static func duration(_ view: JSONView) throws -> EventDuration {
        guard let text = view.string, case .success(let value) = EventDuration.parse(text) else {
            throw Problem(EventDuration.expected, found: view)
        }
        return value
    }

    private static func raw<T: RawRepresentable<String>>(_ type: T.Type, _ view: JSONView) throws -> T {
        guard let value = view.string.flatMap(T.init(rawValue:)) else { throw Problem("a \(T.self) name", found: view) }
        return value
    }

    private static func array<T>(_ view: JSONView, _ element: (JSONView) throws -> T) throws -> [T] {
        guard view.kind == .array else { throw Problem("an array", found: view) }
        var values: [T] = []
        values.reserveCapacity(view.count)
        for index in 0..<view.count {
            guard let item = view[index] else { throw Problem("a value", found: nil).at("[\(index)]") }
            do {
                values.append(try element(item))
            } catch let problem as Problem {
                throw problem.at("[\(index)]")
            }
        }
        return values
    }

    private static func map<T>(_ view: JSONView, _ element: (JSONView) throws -> T) throws -> [String: T] {
        guard view.kind == .object else { throw Problem("an object", found: view) }
        var values: [String: T] = [:]
        values.reserveCapacity(view.count)
        try view.forEachMember { key, item in
            do {
                values[key] = try element(item)
            } catch let problem as Problem {
                throw problem.at(".\(key)")
            }
        }
        return values
    }

    /// What is wrong with a stored body, and where (the path is built on the way out, so reading a
    /// good body builds none).
    private struct Problem: Error {
        var path = ""
        var expected: String
        var found: String

        init(_ expected: String, found: JSONView?) {
            self.expected = expected
            self.found = found.map { $0.kind == .null ? "null" : "a \($0.kind.description)" } ?? "nothing"
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

    /// The members of one JSON object.
    private struct Members {
        let view: JSONView

        init(_ view: JSONView) throws {
            guard view.kind == .object else { throw Problem("an object", found: view) }
            self.view = view
        }

        func required<T>(_ name: String, _ read: (JSONView) throws -> T) throws -> T {
            guard let member = view[name] else { throw Problem("a member", found: nil).at(".\(name)") }
            do {
                return try read(member)
            } catch let problem as Problem {
                throw problem.at(".\(name)")
            }
        }

        /// `nil` when the member is absent or `null`.
        func optional<T>(_ name: String, _ read: (JSONView) throws -> T) throws -> T? {
            guard let member = view[name], !member.isNull else { return nil }
            do {
                return try read(member)
            } catch let problem as Problem {
                throw problem.at(".\(name)")
            }
        }
    }
}
