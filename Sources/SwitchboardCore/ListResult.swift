/// What a cursor-paged list answers: `{"items", "nextCursor", "state"}`, with `nextCursor` null at
/// the end rather than absent, so clients see one shape.
public struct ListResult<Item: Encodable & Sendable>: Encodable, Sendable {
    public var items: [Item]
    public var nextCursor: String?
    public var state: String

    public init(items: [Item], nextCursor: String?, state: String) {
        self.items = items
        self.nextCursor = nextCursor
        self.state = state
    }

    public init(_ page: Page<Item>, state: String) {
        self.init(items: page.items, nextCursor: page.nextCursor, state: state)
    }

    enum CodingKeys: String, CodingKey { case items, nextCursor, state }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
        try container.encode(state, forKey: .state)
    }
}
