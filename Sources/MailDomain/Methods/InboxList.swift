import Jansson
import JSONRPC
import SwitchboardCore

/// `inbox.list {folder?, cursor?, limit?, unreadOnly?}` → `{items, nextCursor, hasMore, state}`: a folder's
/// conversations, newest activity first. Cursors belong to one account, folder and filter.
public enum InboxList: RPCMethod {
    public static let name = "inbox.list"
    public static let summary = "Lists a folder's conversations, newest activity first, a page at a time."

    public struct Params: Decodable, Sendable {
        public var folder: Folder
        public var unreadOnly: Bool
        public var page: PageRequest

        enum CodingKeys: String, CodingKey { case folder, unreadOnly }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let name = try container.decodeIfPresent(String.self, forKey: .folder) {
                folder = try Folder.parse(name, field: "folder")
            } else {
                folder = .inbox
            }
            unreadOnly = try container.decodeIfPresent(Bool.self, forKey: .unreadOnly) ?? false
            page = try PageRequest(from: decoder)
        }
    }

    public typealias Result = ListResult<Conversation>

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        let state = try await mail.state()
        let page = try await mail.conversations(account: account, folder: params.folder, unreadOnly: params.unreadOnly, page: params.page)
        return Result(page, state: state)
    }
}
