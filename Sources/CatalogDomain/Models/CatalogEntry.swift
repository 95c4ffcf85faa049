/// One item of an import, as it is stored: a sector (its brochure count is derived, not stored) or a
/// brochure. An import is a list of entries in document order, each sector before its brochures.
public enum CatalogEntry: Sendable, Equatable {
    case sector(SectorEntry)
    case brochure(Brochure)
}

/// A sector as stored: what the backend says of it, without the brochure count.
public struct SectorEntry: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var imageUrl: String?

    public init(id: Int64, name: String, imageUrl: String?) {
        self.id = id
        self.name = name
        self.imageUrl = imageUrl
    }
}

/// What an import did with the sectors or the brochures it was given.
public struct ImportCounts: Codable, Sendable, Equatable {
    /// New ids.
    public var created = 0
    /// Known ids whose data changed.
    public var updated = 0
    /// Known ids given again with the same data.
    public var unchanged = 0

    public init(created: Int = 0, updated: Int = 0, unchanged: Int = 0) {
        self.created = created
        self.updated = updated
        self.unchanged = unchanged
    }

    static func + (a: ImportCounts, b: ImportCounts) -> ImportCounts {
        ImportCounts(created: a.created + b.created, updated: a.updated + b.updated, unchanged: a.unchanged + b.unchanged)
    }
}

/// An import's counts, for sectors and for brochures.
public struct CatalogImportCounts: Codable, Sendable, Equatable {
    public var sectors = ImportCounts()
    public var brochures = ImportCounts()

    public init(sectors: ImportCounts = ImportCounts(), brochures: ImportCounts = ImportCounts()) {
        self.sectors = sectors
        self.brochures = brochures
    }

    static func + (a: CatalogImportCounts, b: CatalogImportCounts) -> CatalogImportCounts {
        CatalogImportCounts(sectors: a.sectors + b.sectors, brochures: a.brochures + b.brochures)
    }
}
