/// A section of the catalog: a kind of shop ("Lebensmittel", "Möbel & Wohnen") and its brochures.
public struct Sector: Codable, Sendable, Equatable {
    /// Not negative (the backend's models refuse a negative id).
    public var id: Int64
    public var name: String
    /// The image a section header shows, `null` when there is none.
    public var imageUrl: String?
    /// How many brochures the sector holds, for the section header.
    public var brochureCount: Int

    public init(id: Int64, name: String, imageUrl: String?, brochureCount: Int) {
        self.id = id
        self.name = name
        self.imageUrl = imageUrl
        self.brochureCount = brochureCount
    }

    enum CodingKeys: String, CodingKey { case id, name, imageUrl, brochureCount }

    /// Every member is always present, `null` when unknown, so clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(imageUrl, forKey: .imageUrl)
        try container.encode(brochureCount, forKey: .brochureCount)
    }
}
