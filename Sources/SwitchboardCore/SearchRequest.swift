/// The params of every `*.search` method: `{"query": string, "cursor"?, "limit"?}`.
public struct SearchRequest: Decodable, Sendable {
    public var query: String
    public var page: PageRequest

    enum CodingKeys: String, CodingKey { case query }

    public init(query: String, page: PageRequest = PageRequest()) {
        self.query = query
        self.page = page
    }

    public init(from decoder: any Decoder) throws {
        query = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .query)
        page = try PageRequest(from: decoder)
    }
}
