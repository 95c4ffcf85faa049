import GRDB
import SwitchboardCore
import SwitchboardStorage

/// The catalog in SQLite (GRDB): a row per sector and per brochure, each import batch with its
/// change records in one transaction.
///
/// ```swift
/// let database = try AppDatabase(path: ":memory:", migrations: SQLiteCatalogService.migrations)
/// try await database.writer.write { try SQLiteCatalogService.seed($0) }
/// let catalog = SQLiteCatalogService(database: database)
/// let sectors = try await catalog.sectors()
/// ```
public struct SQLiteCatalogService: CatalogService {
    public let database: AppDatabase
    private let signal: ChangeSignal

    /// - Parameter signal: posted after every committed write.
    public init(database: AppDatabase, signal: ChangeSignal = ChangeSignal()) {
        self.database = database
        self.signal = signal
    }

    public func sectors() async throws -> [Sector] {
        try database.read { db in try Self.sectors(db, where: "", arguments: []) }
    }

    public func sector(id: Int64) async throws -> Sector? {
        try database.read { db in try Self.sectors(db, where: "WHERE s.id = ?", arguments: [id]).first }
    }

    public func brochures(sectorId: Int64?, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        try database.read { db in
            if let sectorId {
                return try Self.brochures(db, where: "sector_id = ? AND id > ?", arguments: [sectorId, afterID], limit: limit)
            }
            return try Self.brochures(db, where: "id > ?", arguments: [afterID], limit: limit)
        }
    }

    public func brochure(id: Int64) async throws -> Brochure? {
        try database.read { db in try Self.brochures(db, where: "id = ?", arguments: [id], limit: 1).first }
    }

    public func search(_ query: CatalogQuery, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        guard !query.isEmpty else { return [] }
        let terms = query.patterns.map { _ in " AND instr(search_text, ?) > 0" }.joined()
        return try database.read { db in
            try Self.brochures(db, where: "id > ?" + terms, arguments: StatementArguments([afterID] + query.patterns), limit: limit)
        }
    }

    public func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> {
        let (committed, wrote) = try await database.write { db in
            let merge = try CatalogMerge(batch, storedSector: { try Self.sectorEntry(db, id: $0) },
                                         storedBrochure: { try Self.brochures(db, where: "id = ?", arguments: [$0], limit: 1).first })
            for write in merge.writes {
                try Self.store(write.entry, db)
                try ChangeLog.record(db, domain: catalogDomain, itemID: write.entry.itemID, kind: write.kind)
            }
            return (Committed(merge.counts, state: try ChangeLog.state(db, domain: catalogDomain)), !merge.writes.isEmpty)
        }
        if wrote { signal.post() }
        return committed
    }

    public func state() async throws -> String {
        try database.read { db in try ChangeLog.state(db, domain: catalogDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try database.read { db in try ChangeLog.changes(db, domain: catalogDomain, since: sinceState, limit: limit) }
    }

    /// Writes the demo catalog (``DemoCatalog``) as the starting state: no change records.
    /// Reports the brochures written at the end.
    public static func seed(_ db: Database, progress: (Int) -> Void = { _ in }) throws {
        var brochures = 0
        for entry in DemoCatalog.entries() {
            try store(entry, db)
            if case .brochure = entry { brochures += 1 }
        }
        progress(brochures)
    }
}
