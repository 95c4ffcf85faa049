import JSONRPC
import SwitchboardCore

/// `chat.changes {sinceState, maxChanges?}` → `{created, updated, destroyed, newState, hasMoreChanges}`
/// of message ids (`msg-N`) and room ids (`dm-…`, `grp-…`).
public enum ChatChanges: RPCMethod {
    public static let name = "chat.changes"
    public static let summary = "Reports messages and rooms created or updated since a state."
    public typealias Params = ChangesRequest
    public typealias Result = ChangeSet

    static func run(_ params: ChangesRequest, chat: any ChatService) async throws -> ChangeSet {
        try await chat.changes(since: params.sinceState, limit: params.maxChanges)
    }
}
