import Jansson

/// What every paged list answers (`feed.list`, `feed.page`, `inbox.list`, `mail.search`), one shape:
/// `{"items", "nextCursor", "hasMore", "state"}`, plus `"total"` where the list knows its size and
/// `"page"`/`"pageSize"` where it was read by page number.
///
/// `nextCursor` is `null` at the end rather than absent, so clients see one shape; the optional
/// members are absent, not `null`, when the list does not have them.
public struct ListResult<Item: Encodable & Sendable>: Encodable, Sendable {
    public var items: [Item]
    /// Where the next page starts; `nil` at the end.
    public var nextCursor: String?
    /// True when more items follow this page.
    public var hasMore: Bool
    /// How many items the whole list holds, for lists that know it cheaply.
    public var total: Int64?
    /// The page number and size, for a page read by number.
    public var position: PagePosition?
    public var state: String

    public init(items: [Item], nextCursor: String?, hasMore: Bool? = nil, total: Int64? = nil,
                position: PagePosition? = nil, state: String) {
        self.items = items
        self.nextCursor = nextCursor
        self.hasMore = hasMore ?? (nextCursor != nil)
        self.total = total
        self.position = position
        self.state = state
    }

    public init(_ page: Page<Item>, state: String) {
        self.init(items: page.items, nextCursor: page.nextCursor, state: state)
    }

    enum CodingKeys: String, CodingKey { case items, nextCursor, page, pageSize, hasMore, total, state }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
        if let position {
            try container.encode(position.page, forKey: .page)
            try container.encode(position.pageSize, forKey: .pageSize)
        }
        try container.encode(hasMore, forKey: .hasMore)
        try container.encodeIfPresent(total, forKey: .total)
        try container.encode(state, forKey: .state)
    }
}

/// Where a page read by number sits: its 1-based number and its size.
public struct PagePosition: Sendable, Equatable {
    public var page: Int
    public var pageSize: Int

    public init(page: Int, pageSize: Int) {
        self.page = page
        self.pageSize = pageSize
    }
}

/// Items that build their own jansson objects make the whole page build itself: the same members in
/// the same order as ``encode(to:)``.
extension ListResult: JanssonEncodable where Item: JanssonEncodable {
    public func writeMembers(into object: JanssonObjectBuilder) throws {
        try object.set("items", items)
        object.set("nextCursor", nextCursor)
        if let position {
            object.set("page", position.page)
            object.set("pageSize", position.pageSize)
        }
        object.set("hasMore", hasMore)
        if let total { object.set("total", total) }
        object.set("state", state)
    }
}
