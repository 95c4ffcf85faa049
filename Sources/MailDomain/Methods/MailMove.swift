import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.move {uids, folder}` → `{updated, state}`: moves messages to a folder; `updated` lists the
/// uids that changed folder.
public enum MailMove: RPCMethod {
    public static let name = "mail.move"
    public static let summary = "Moves messages to another folder."

    public struct Params: Decodable, Sendable {
        public var uids: [String]
        public var folder: String
    }

    public typealias Result = MailMarkRead.Result

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        try MailUIDs.check(params.uids)
        let folder = try Folder.parse(params.folder, field: "folder")
        let updated = try await MailUIDs.naming(params.uids) { try await mail.move(account: account, uids: params.uids, to: folder) }
        return Result(updated: updated.value, state: updated.state)
    }
}
