import Foundation
import Jansson
import JSONRPC
import SwitchboardCore

/// `calendar.create {title, start, timeZone?, duration?, showWithoutTime?, …, id?}` → `{event, created, state}`:
/// stores a JSCalendar event. Without `timeZone` it is floating (RFC 8984's default); `duration`
/// defaults to `PT0S` (`P1D` all-day). An `id` the client chooses makes a retry safe: a second
/// create with the same id stores nothing and answers the stored event with `created: false`.
public enum CalendarCreate: RPCMethod {
    public static let name = "calendar.create"
    public static let summary = "Creates an event (JSCalendar); a client-chosen id makes retries safe."

    public struct Params: Decodable, Sendable {
        public var id: String?
        public var title: String
        public var description: String?
        public var start: LocalDateTime
        public var timeZone: String?
        public var duration: EventDuration?
        public var showWithoutTime: Bool?
        public var locations: [String: Location]?
        public var participants: [String: Participant]?
        public var recurrenceRules: [RecurrenceRule]?
        public var recurrenceOverrides: [String: EventOverride]?

        private enum CodingKeys: String, CodingKey {
            case id, title, description, start, timeZone, duration, showWithoutTime, locations, participants, recurrenceRules, recurrenceOverrides
        }

        /// An `@type` of `Event` is taken (``JSCalendarType``).
        public init(from decoder: any Decoder) throws {
            try JSCalendarType.check(decoder, is: "Event")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            start = try container.decode(LocalDateTime.self, forKey: .start)
            timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
            duration = try container.decodeIfPresent(EventDuration.self, forKey: .duration)
            showWithoutTime = try container.decodeIfPresent(Bool.self, forKey: .showWithoutTime)
            locations = try container.decodeIfPresent([String: Location].self, forKey: .locations)
            participants = try container.decodeIfPresent([String: Participant].self, forKey: .participants)
            recurrenceRules = try container.decodeIfPresent([RecurrenceRule].self, forKey: .recurrenceRules)
            recurrenceOverrides = try container.decodeIfPresent([String: EventOverride].self, forKey: .recurrenceOverrides)
        }
    }

    public struct Result: Encodable, Sendable {
        public var event: CalendarEvent
        public var created: Bool
        public var state: String
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        if let id = params.id { try EventID.check(id, field: "id") }
        let allDay = params.showWithoutTime ?? false
        let event = CalendarEvent(
            id: params.id ?? EventID.make(), title: params.title, description: params.description, start: params.start,
            timeZone: params.timeZone, duration: params.duration ?? (allDay ? EventDuration(days: 1) : .zero),
            showWithoutTime: allDay, locations: params.locations, participants: params.participants,
            recurrenceRules: params.recurrenceRules, recurrenceOverrides: params.recurrenceOverrides)
        try EventValidation.check(event, prefix: "")
        let committed = try await context.calendar.put([event], replacing: false)
        let created = committed.value.first == .created
        let stored = created ? event : try await context.calendar.event(id: event.id) ?? event
        return Result(event: stored, created: created, state: committed.state)
    }
}

/// Event ids: a client's are 1...255 bytes; the host makes UUIDs.
enum EventID {
    static func make() -> String { UUID().uuidString.lowercased() }

    static func check(_ id: String, field: String) throws(JSONFieldError) {
        guard isValid(id) else {
            throw JSONFieldError(field: field, expected: "an event id of 1...255 bytes without control characters", got: JSONFieldError.quote(id))
        }
    }

    /// 1...255 bytes and no control character: an id is an iCalendar UID on export, and libical drops
    /// control characters from a UID it writes (a `\f` imported came back as an empty UID; found by fuzzing).
    static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255 && !id.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
