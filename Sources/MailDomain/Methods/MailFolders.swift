import JSONRPC

/// `mail.folders` → `{folders, state}`: the drawer, with each folder's message and unread counts.
public enum MailFolders: RPCMethod {
    public static let name = "mail.folders"
    public static let summary = "Lists the folders of the drawer with total and unread counts."

    public struct Result: Encodable, Sendable {
        public var folders: [FolderSummary]
        public var state: String
    }

    static func run(mail: any MailService, account: String) async throws -> Result {
        let state = try await mail.state()
        return Result(folders: try await mail.folders(account: account), state: state)
    }
}
