import Jansson
import JSONRPC
import SwitchboardCore

/// `feed.page {page, pageSize?}` → `{items, nextCursor, page, pageSize, hasMore, total, state}`, for clients that
/// count pages. Page n maps straight to an id range, so deep pages cost the same as the first.
public enum FeedPage: RPCMethod {
    public static let name = "feed.page"
    public static let summary = "Reads page n of the feed, for page-number clients."

    public struct Params: Decodable, Sendable {
        public var page: Int
        public var pageSize: Int?
    }

    /// `nextCursor` is where `feed.list` continues after this page (null at the end): a client can
    /// switch to cursors.
    public typealias Result = ListResult<Profile>

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
        return Result(items: items, nextCursor: nextCursor, hasMore: hasMore, total: total,
                      position: PagePosition(page: params.page, pageSize: pageSize), state: state)
    }
}
