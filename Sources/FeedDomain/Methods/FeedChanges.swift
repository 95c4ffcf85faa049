import JSONRPC
import SwitchboardCore

/// `feed.changes {sinceState, maxChanges?}` → `{created, updated, destroyed, newState, hasMoreChanges}`.
public enum FeedChanges: RPCMethod {
    public static let name = "feed.changes"
    public static let summary = "Reports feed items created, updated or destroyed since a state."
    public typealias Params = ChangesRequest
    public typealias Result = ChangeSet

    static func run(_ params: ChangesRequest, feed: any FeedService) async throws -> ChangeSet {
        try await feed.changes(since: params.sinceState, limit: params.maxChanges)
    }
}
