import JSONRPC
import SwitchboardCore

/// `mail.changes {sinceState, maxChanges?}` → `{created, updated, destroyed, newState, hasMoreChanges}`
/// of the signed-in account's message uids.
public enum MailChanges: RPCMethod {
    public static let name = "mail.changes"
    public static let summary = "Reports messages created or updated since a state."
    public typealias Params = ChangesRequest
    public typealias Result = ChangeSet

    static func run(_ params: ChangesRequest, mail: any MailService, account: String) async throws -> ChangeSet {
        try await mail.changes(account: account, since: params.sinceState, limit: params.maxChanges)
    }
}
