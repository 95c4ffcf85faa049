import Jansson
import JSONRPC
import SwitchboardCore

/// `feed.page {page, pageSize?}` → `{items, page, pageSize, hasMore, total, state}`, for clients that
/// count pages. Page n maps straight to an id range, so deep pages cost the same as the first.
public enum FeedPage: RPCMethod {
    public static let name = "feed.page"
    public static let summary = "Reads page n of the feed, for page-number clients."

    public struct Params: Decodable, Sendable {
        public var page: Int
        public var pageSize: Int?
    }

    public struct Result: Encodable, Sendable {
        public var items: [Profile]
        public var page: Int
        public var pageSize: Int
        public var hasMore: Bool
        public var total: Int64
        public var state: String
    }

    static func run(_ params: Params, feed: any FeedService) async throws -> Result {
        let pageSize = params.pageSize ?? PageRequest.defaultLimit
        guard PageRequest.limitRange.contains(pageSize) else {
            throw JSONFieldError(field: "pageSize", expected: "integer 1...500", got: String(pageSize))
        }
        guard params.page >= 1, params.page <= Int(Int32.max) else {
            throw JSONFieldError(field: "page", expected: "integer 1...\(Int32.max)", got: String(params.page))
        }
        let state = try await feed.state()
        let total = try await feed.count()
        let start = Int64(params.page - 1) * Int64(pageSize)
        let items = try await feed.items(after: start, limit: pageSize)
        return Result(items: items, page: params.page, pageSize: pageSize,
                      hasMore: start + Int64(items.count) < total, total: total, state: state)
    }
}
