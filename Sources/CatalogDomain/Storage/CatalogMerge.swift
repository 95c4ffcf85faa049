import SwitchboardCore

/// What storing a batch of an import does, decided once for both services: each entry is created
/// when its id is new, updated when its data differs from what is stored, else left alone (and
/// records no change). A service stores ``writes`` and records each one's change.
struct CatalogMerge {
    /// An entry to store, and the change it is.
    struct Write {
        var entry: CatalogEntry
        var kind: ChangeRecord.Kind
    }

    private(set) var writes: [Write] = []
    private(set) var counts = CatalogImportCounts()

    /// - Parameters:
    ///   - storedSector: the sector stored under an id, nil when there is none.
    ///   - storedBrochure: the brochure stored under an id, nil when there is none.
    init(_ batch: [CatalogEntry], storedSector: (Int64) throws -> SectorEntry?,
         storedBrochure: (Int64) throws -> Brochure?) rethrows {
        // An id given twice in one batch compares with its first occurrence.
        var planned: [String: CatalogEntry] = [:]
        for entry in batch {
            let earlier = planned.updateValue(entry, forKey: entry.itemID)
            switch entry {
            case .sector(let sector):
                let stored = try earlier ?? storedSector(sector.id).map(CatalogEntry.sector)
                add(entry, stored: stored.map { $0 == entry }, to: \.sectors)
            case .brochure(let brochure):
                let stored = try earlier ?? storedBrochure(brochure.id).map(CatalogEntry.brochure)
                add(entry, stored: stored.map { $0 == entry }, to: \.brochures)
            }
        }
    }

    /// - Parameter stored: nil when the id is new, else whether the stored data is the same.
    private mutating func add(_ entry: CatalogEntry, stored same: Bool?, to counts: WritableKeyPath<CatalogImportCounts, ImportCounts>) {
        switch same {
        case nil:
            writes.append(Write(entry: entry, kind: .created))
            self.counts[keyPath: counts].created += 1
        case false?:
            writes.append(Write(entry: entry, kind: .updated))
            self.counts[keyPath: counts].updated += 1
        case true?:
            self.counts[keyPath: counts].unchanged += 1
        }
    }
}

extension CatalogEntry {
    /// The change-log item id of the entry.
    var itemID: String {
        switch self {
        case .sector(let sector): CatalogItemID.sector(sector.id)
        case .brochure(let brochure): CatalogItemID.brochure(brochure.id)
        }
    }
}
