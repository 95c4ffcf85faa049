import Jansson

/// The pagination params every list takes: `{"cursor": string?, "limit": 1...500}` (default 50).
public struct PageRequest: Decodable, Sendable, Equatable {
    public static let defaultLimit = 50
    public static let limitRange = 1...500

    public var cursor: String?
    public var limit: Int

    public init(cursor: String? = nil, limit: Int = PageRequest.defaultLimit) {
        self.cursor = cursor
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey { case cursor, limit }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        limit = try container.decodeIfPresent(Int.self, forKey: .limit) ?? Self.defaultLimit
        guard Self.limitRange.contains(limit) else {
            throw JSONFieldError(field: "limit", expected: "integer 1...500", got: String(limit))
        }
    }
}

/// One page of a list: its items and where the next page starts (`nil` at the end).
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
