import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `calendar.update {id, patch, scope?, recurrenceId?}` → `{event, created?, state}`. `scope` is
/// `"all"` (the default), `"this"` (the occurrence whose original start is `recurrenceId`, recorded
/// as a recurrence override) or `"thisAndFollowing"` (the event is split: it ends before that
/// occurrence, and a new event, `created`, carries the patch from there on).
public enum CalendarUpdate: RPCMethod {
    public static let name = "calendar.update"
    public static let summary = "Updates an event, one occurrence of it, or it from one occurrence on."

    public struct Params: Decodable, Sendable {
        public var id: String
        public var patch: EventPatch
        public var scope: EditScope?
        public var recurrenceId: LocalDateTime?
    }

    public struct Result: Encodable, Sendable {
        public var event: CalendarEvent
        public var created: CalendarEvent?
        public var state: String
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let newID = EventID.make()
        let (patch, scope, recurrenceId) = (params.patch, params.scope ?? .all, params.recurrenceId)
        do {
            let committed = try await context.calendar.edit(id: params.id) { event in
                try EventEditing.update(event, patch: patch, scope: scope, recurrenceId: recurrenceId, newID: newID)
            }
            guard let event = committed.value.updated else { throw ServiceError.notFound(kind: "event", id: params.id) }
            return Result(event: event, created: committed.value.created, state: committed.state)
        } catch let error as ServiceError where error.isNotFound {
            throw ResponseError(service: error, field: "id")
        }
    }
}

/// `calendar.delete {id, scope?, recurrenceId?}` → `{deleted, event?, state}`: the whole event
/// (`deleted: true`), or with `scope` `"this"` one occurrence (an excluded override) or
/// `"thisAndFollowing"` it and every later one; `event` is what remains.
public enum CalendarDelete: RPCMethod {
    public static let name = "calendar.delete"
    public static let summary = "Deletes an event, one occurrence of it, or it from one occurrence on."

    public struct Params: Decodable, Sendable {
        public var id: String
        public var scope: EditScope?
        public var recurrenceId: LocalDateTime?
    }

    public struct Result: Encodable, Sendable {
        public var deleted: Bool
        public var event: CalendarEvent?
        public var state: String
    }

    static func run(_ params: Params, context: CalendarContext) async throws -> Result {
        let (scope, recurrenceId) = (params.scope ?? .all, params.recurrenceId)
        do {
            let committed = try await context.calendar.edit(id: params.id) { event in
                try EventEditing.delete(event, scope: scope, recurrenceId: recurrenceId)
            }
            return Result(deleted: committed.value.updated == nil, event: committed.value.updated, state: committed.state)
        } catch let error as ServiceError where error.isNotFound {
            throw ResponseError(service: error, field: "id")
        }
    }
}
