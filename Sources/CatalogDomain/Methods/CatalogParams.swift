import Jansson
import SwitchboardCore

/// The checks of catalog params every method shares.
enum CatalogParams {
    /// `value` as an id, or the `-32602` error naming `field`: ids are not negative.
    static func id(_ value: Int64, field: String) throws(JSONFieldError) -> Int64 {
        guard value >= 0 else { throw JSONFieldError(field: field, expected: "a non-negative integer id", got: String(value)) }
        return value
    }

    /// The id a page starts after: -1 on the first page (ids start at 0), else the id `cursor` (one of `list`) names.
    static func after(_ cursor: String?, list: String) throws(JSONFieldError) -> Int64 {
        guard let text = cursor else { return -1 }
        let cursor = try Cursor.decode(text, list: list)
        guard cursor.sortKey.isEmpty, let id = Int64(cursor.id), id >= 0 else { throw Cursor.invalid(text) }
        return id
    }

    /// The page of `items` read with `limit + 1`: the extra item only tells whether more follow.
    static func page(_ items: [Brochure], limit: Int, list: String, state: String) -> ListResult<Brochure> {
        let hasMore = items.count > limit
        let page = Array(items.prefix(limit))
        let next = hasMore ? page.last.map { Cursor(list: list, sortKey: "", id: String($0.id)).encoded } : nil
        return ListResult(items: page, nextCursor: next, hasMore: hasMore, state: state)
    }
}
