import Synchronization
import SwitchboardCore

/// The catalog held in memory: the demo catalog (``DemoCatalog``) at start, then whatever is
/// imported, with change tracking in an in-memory log. Deterministic.
///
/// Lists are computed on each call, which suits fixture-sized catalogs; the answers are the same as
/// ``SQLiteCatalogService`` gives for the same operations.
public final class InMemoryCatalogService: CatalogService {
    private struct Store {
        var sectors: [Int64: SectorEntry] = [:]
        var brochures: [Int64: Brochure] = [:]
        /// Each brochure's ``CatalogQuery/searchText(title:retailerName:)``.
        var searchTexts: [Int64: String] = [:]
        var log: InMemoryChangeLog

        mutating func store(_ entry: CatalogEntry) {
            switch entry {
            case .sector(let sector):
                sectors[sector.id] = sector
            case .brochure(let brochure):
                brochures[brochure.id] = brochure
                searchTexts[brochure.id] = CatalogQuery.searchText(title: brochure.title, retailerName: brochure.retailerName)
            }
        }

        func sector(_ entry: SectorEntry) -> Sector {
            Sector(id: entry.id, name: entry.name, imageUrl: entry.imageUrl,
                   brochureCount: brochures.values.reduce(0) { $0 + ($1.sectorId == entry.id ? 1 : 0) })
        }

        /// Brochures passing `filter` with ids after `afterID`, in id order, at most `limit`.
        func brochures(after afterID: Int64, limit: Int, where filter: (Brochure) -> Bool) -> [Brochure] {
            Array(brochures.values.filter { $0.id > afterID && filter($0) }.sorted { $0.id < $1.id }.prefix(limit))
        }
    }

    private let store: Mutex<Store>
    private let signal: ChangeSignal

    /// - Parameters:
    ///   - demo: whether to start with the demo catalog.
    ///   - retainedChanges: change records kept (see ``InMemoryChangeLog``).
    ///   - signal: posted after every write.
    public init(demo: Bool = true, retainedChanges: Int = ChangeTracking.retainedRecords, signal: ChangeSignal = ChangeSignal()) {
        var store = Store(log: InMemoryChangeLog(retained: retainedChanges, interval: min(ChangeTracking.pruneInterval, retainedChanges)))
        if demo { DemoCatalog.entries().forEach { store.store($0) } }
        self.store = Mutex(store)
        self.signal = signal
    }

    public func sectors() async throws -> [Sector] {
        store.withLock { store in store.sectors.values.map { store.sector($0) } }
    }

    public func sector(id: Int64) async throws -> Sector? {
        store.withLock { store in store.sectors[id].map { store.sector($0) } }
    }

    public func brochures(sectorId: Int64?, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        store.withLock { store in store.brochures(after: afterID, limit: limit) { sectorId == nil || $0.sectorId == sectorId } }
    }

    public func brochure(id: Int64) async throws -> Brochure? {
        store.withLock { $0.brochures[id] }
    }

    public func search(_ query: CatalogQuery, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        store.withLock { store in
            store.brochures(after: afterID, limit: limit) { query.matches(searchText: store.searchTexts[$0.id] ?? "") }
        }
    }

    public func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> {
        let (committed, wrote) = store.withLock { store in
            let merge = CatalogMerge(batch, storedSector: { store.sectors[$0] }, storedBrochure: { store.brochures[$0] })
            for write in merge.writes {
                store.store(write.entry)
                store.log.record(itemID: write.entry.itemID, kind: write.kind)
            }
            return (Committed(merge.counts, state: store.log.state(domain: catalogDomain)), !merge.writes.isEmpty)
        }
        if wrote { signal.post() }
        return committed
    }

    public func state() async throws -> String {
        store.withLock { $0.log.state(domain: catalogDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try store.withLock { store throws(ServiceError) in try store.log.changes(domain: catalogDomain, since: sinceState, limit: limit) }
    }
}
