import DomainMethods
import JSONRPC
import SwitchboardCore

/// `calendar.get {id}` → `{event, state}`: one stored event as JSCalendar.
public enum CalendarGet: RPCMethod {
    public static let name = "calendar.get"
    public static let summary = "Reads one event by id."

    public struct Params: Decodable, Sendable {
        public var id: String
    }

    public struct Result: Encodable, Sendable {
        public var event: CalendarEvent
        public var state: String
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let state = try await context.calendar.state()
        guard let event = try await context.calendar.event(id: params.id) else {
            throw ResponseError.notFound("event \(params.id)", field: "id", got: params.id)
        }
        return Result(event: event, state: state)
    }
}

/// `calendar.changes {sinceState, maxChanges?}` → `{created, updated, destroyed, newState, hasMoreChanges}` of event ids.
public enum CalendarChanges: RPCMethod {
    public static let name = "calendar.changes"
    public static let summary = "Reports events created, updated or destroyed since a state."
    public typealias Params = ChangesRequest
    public typealias Result = ChangeSet

    static func run(_ params: ChangesRequest, context: CalendarContext) async throws -> ChangeSet {
        try await context.calendar.changes(since: params.sinceState, limit: params.maxChanges)
    }
}
