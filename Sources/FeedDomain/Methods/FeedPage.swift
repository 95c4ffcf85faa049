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

    public struct Result: Sendable {
        public var items: [Profile]
        /// Where `feed.list` continues after this page (null at the end): a client can switch to cursors.
        public var nextCursor: String?
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
        let start = Int64(params.page - 1) * Int64(pageSize)
        let slice = try await feed.slice(after: start, limit: pageSize)
        let (items, total, state) = (slice.items, slice.total, slice.state)
        let hasMore = start + Int64(items.count) < total
        let nextCursor = hasMore ? items.last.map { FeedList.cursor(after: $0) } : nil
        return Result(items: items, nextCursor: nextCursor, page: params.page, pageSize: pageSize,
                      hasMore: hasMore, total: total, state: state)
    }
}

extension FeedPage.Result: Encodable {
    enum CodingKeys: String, CodingKey { case items, nextCursor, page, pageSize, hasMore, total, state }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)  // null at the end, never absent
        try container.encode(page, forKey: .page)
        try container.encode(pageSize, forKey: .pageSize)
        try container.encode(hasMore, forKey: .hasMore)
        try container.encode(total, forKey: .total)
        try container.encode(state, forKey: .state)
    }
}
