/// One brochure of a sector: what a catalog cell shows.
public struct Brochure: Codable, Sendable, Equatable {
    /// Not negative (the backend's models refuse a negative id).
    public var id: Int64
    public var sectorId: Int64
    public var title: String
    public var retailerName: String
    /// The cover image, `null` when there is none.
    public var coverUrl: String?

    public init(id: Int64, sectorId: Int64, title: String, retailerName: String, coverUrl: String?) {
        self.id = id
        self.sectorId = sectorId
        self.title = title
        self.retailerName = retailerName
        self.coverUrl = coverUrl
    }

    enum CodingKeys: String, CodingKey { case id, sectorId, title, retailerName, coverUrl }

    /// Every member is always present, `null` when unknown, so clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(sectorId, forKey: .sectorId)
        try container.encode(title, forKey: .title)
        try container.encode(retailerName, forKey: .retailerName)
        try container.encode(coverUrl, forKey: .coverUrl)
    }
}
