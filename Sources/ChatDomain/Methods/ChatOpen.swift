import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `chat.open {userId}` → `{room, created, state}`: the direct room with that user, created on the
/// first call (one per pair of users, however many processes open it at once).
public enum ChatOpen: RPCMethod {
    public static let name = "chat.open"
    public static let summary = "Opens the direct room with a user, creating it the first time."

    public struct Params: Decodable, Sendable {
        public var userId: String
    }

    public struct Result: Encodable, Sendable {
        public var room: ChatRoom
        public var created: Bool
        public var state: String
    }

    static func run(_ params: Params, chat: any ChatService, user: String) async throws -> Result {
        try ChatLimits.check(params.userId, field: "userId", maximum: ChatLimits.id)
        guard !params.userId.hasSameBytes(as: user) else {
            throw JSONFieldError(field: "userId", expected: "another user's id (a direct room has two members)", got: JSONFieldError.quote(params.userId))
        }
        do {
            let opened = try await chat.openDirect(user: user, with: params.userId)
            return Result(room: opened.value.room, created: opened.value.created, state: opened.state)
        } catch let error as ServiceError where error.isNotFound {
            throw ResponseError(service: error, field: "userId")
        }
    }
}
