import Jansson
import JSONRPC
import SwitchboardCore

/// `catalog.search {query, cursor?, limit?}` → `{items, nextCursor, hasMore, state}`: the brochures
/// whose title or retailer name holds every word of `query`, accents and case aside, in id order
/// (see ``CatalogQuery``). A query with no letters or digits finds nothing.
public enum CatalogSearch: RPCMethod {
    public static let name = "catalog.search"
    public static let summary = "Searches brochure titles and retailer names, ignoring accents and case."
    public static let runsLong = true

    public typealias Params = SearchRequest

    public typealias Result = ListResult<Brochure>

    static func run(_ params: Params, catalog: any CatalogService) async throws -> Result {
        let query = try CatalogQuery.parse(params.query)
        let list = "catalog/search/\(query.normalized)"
        let after = try CatalogParams.after(params.page.cursor, list: list)
        let state = try await catalog.state()
        let items = try await catalog.search(query, after: after, limit: params.page.limit + 1)
        return CatalogParams.page(items, limit: params.page.limit, list: list, state: state)
    }
}
