import Jansson
import JSONRPC
import SwitchboardCore

/// `feed.list {cursor?, limit?}` → `{items, nextCursor, hasMore, total, state}`: the feed in id order,
/// a cursor at a time. Cursors stay valid while items are appended.
public enum FeedList: RPCMethod {
    public static let name = "feed.list"
    public static let summary = "Lists the feed a page at a time, with an opaque cursor."
    public typealias Params = PageRequest

    public typealias Result = ListResult<Profile>

    static let list = "feed"

    /// The cursor that continues after `item`.
    static func cursor(after item: Profile) -> String {
        Cursor(list: list, sortKey: "", id: String(item.id)).encoded
    }

    static func run(_ params: PageRequest, feed: any FeedService) async throws -> Result {
        var after: Int64 = 0
        if let text = params.cursor {
            let cursor = try Cursor.decode(text, list: list)
            // No item has id Int64.max, so no cursor names it; refusing it keeps `after + 1` in range.
            guard let id = Int64(cursor.id), id >= 0, id < .max else {
                throw Cursor.invalid(text)
            }
            after = id
        }
        var slice = try await feed.slice(after: after, limit: params.limit + 1)
        // The extra item only tells whether more follow: dropped in place, not copied around.
        let hasMore = slice.items.count > params.limit
        if hasMore { slice.items.removeLast(slice.items.count - params.limit) }
        let items = slice.items
        let nextCursor = hasMore ? items.last.map(cursor(after:)) : nil
        return Result(items: items, nextCursor: nextCursor, hasMore: hasMore, total: slice.total, state: slice.state)
    }
}
