import JSONRPC
import SwitchboardCore

/// `catalog.changes {sinceState, maxChanges?}` → `{created, updated, destroyed, newState, hasMoreChanges}`
/// of sectors and brochures, as `sector/ID` and `brochure/ID`.
public enum CatalogChanges: RPCMethod {
    public static let name = "catalog.changes"
    public static let summary = "Reports sectors and brochures created or updated since a state."
    public typealias Params = ChangesRequest
    public typealias Result = ChangeSet

    static func run(_ params: ChangesRequest, catalog: any CatalogService) async throws -> ChangeSet {
        try await catalog.changes(since: params.sinceState, limit: params.maxChanges)
    }
}
