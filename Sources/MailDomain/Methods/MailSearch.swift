import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.search {query, cursor?, limit?}` → `{items, nextCursor, hasMore, state}`: full-text search over
/// sender, subject and text, best match first (see ``SearchQuery`` for matching and scoring).
public enum MailSearch: RPCMethod {
    public static let name = "mail.search"
    public static let summary = "Searches sender, subject and text of every folder, best match first."
    public static let runsLong = true

    public typealias Params = SearchRequest

    public typealias Result = ListResult<SearchHit>

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        try TextLimit.check(params.query, field: "query", maximum: TextLimit.query)
        try SearchQuery.check(params.query)
        let state = try await mail.state()
        let page = try await mail.search(account: account, query: params.query, page: params.page)
        return Result(page, state: state)
    }
}
