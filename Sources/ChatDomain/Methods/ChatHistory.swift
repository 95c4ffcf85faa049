import DomainMethods
import JSONRPC
import SwitchboardCore

/// `chat.history {roomId, cursor?, limit?}` → `{items, nextCursor, hasMore, state}`: a room's
/// messages, newest first. Cursors belong to one room.
public enum ChatHistory: RPCMethod {
    public static let name = "chat.history"
    public static let summary = "Lists a room's messages, newest first, a page at a time."

    public struct Params: Decodable, Sendable {
        public var roomId: String
        public var page: PageRequest

        enum CodingKeys: String, CodingKey { case roomId }

        public init(from decoder: any Decoder) throws {
            roomId = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .roomId)
            page = try PageRequest(from: decoder)
        }
    }

    public typealias Result = ListResult<ChatMessage>

    static func run(_ params: Params, chat: any ChatService, user: String) async throws -> Result {
        try ChatLimits.check(params.roomId, field: "roomId", maximum: ChatLimits.id)
        let state = try await chat.state()
        do {
            return Result(try await chat.history(user: user, roomId: params.roomId, page: params.page), state: state)
        } catch let error as ServiceError where error.isNotFound {
            throw ResponseError(service: error, field: "roomId")
        }
    }
}
