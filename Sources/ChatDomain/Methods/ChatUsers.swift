import JSONRPC
import SwitchboardCore

/// `chat.users {cursor?, limit?}` → `{items, nextCursor, hasMore, state}`: everyone one can chat
/// with, by login.
public enum ChatUsers: RPCMethod {
    public static let name = "chat.users"
    public static let summary = "Lists the users one can chat with, by login, a page at a time."
    public typealias Params = PageRequest
    public typealias Result = ListResult<ChatUser>

    static func run(_ params: PageRequest, chat: any ChatService, user: String) async throws -> Result {
        let state = try await chat.state()
        return Result(try await chat.users(except: user, page: params), state: state)
    }
}
