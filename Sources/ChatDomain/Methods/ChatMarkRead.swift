import DomainMethods
import JSONRPC
import SwitchboardCore

/// `chat.markRead {roomId, upTo}` → `{room, state}`: marks the room read up to and including
/// message `upTo`; a mark never moves back.
public enum ChatMarkRead: RPCMethod {
    public static let name = "chat.markRead"
    public static let summary = "Marks a room read up to a message."

    public struct Params: Decodable, Sendable {
        public var roomId: String
        public var upTo: String
    }

    public struct Result: Encodable, Sendable {
        public var room: ChatRoom
        public var state: String
    }

    static func run(_ params: Params, chat: any ChatService, user: String) async throws -> Result {
        try ChatLimits.check(params.roomId, field: "roomId", maximum: ChatLimits.id)
        try ChatLimits.check(params.upTo, field: "upTo", maximum: ChatLimits.id)
        do {
            let marked = try await chat.markRead(user: user, roomId: params.roomId, upTo: params.upTo)
            return Result(room: marked.value, state: marked.state)
        } catch let error as ServiceError where error.isNotFound {
            if case .notFound(let kind, _) = error, kind == "message" { throw ResponseError(service: error, field: "upTo") }
            throw ResponseError(service: error, field: "roomId")
        }
    }
}
