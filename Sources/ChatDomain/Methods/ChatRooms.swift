import JSONRPC
import SwitchboardCore

/// `chat.rooms` → `{items, nextCursor: null, hasMore: false, state}`: the signed-in user's rooms,
/// latest message first, each with its last message and unread count.
public enum ChatRooms: RPCMethod {
    public static let name = "chat.rooms"
    public static let summary = "Lists the signed-in user's rooms, latest message first, with unread counts."
    public typealias Result = ListResult<ChatRoom>

    static func run(chat: any ChatService, user: String) async throws -> Result {
        let state = try await chat.state()
        return Result(items: try await chat.rooms(user: user), nextCursor: nil, state: state)
    }
}
