import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// The catalog on PostgreSQL: a row per sector and per brochure, as on SQLite. The rules stay above
/// the SQL, shared with the other services: what an import creates or updates (``CatalogMerge``), what
/// a search matches (``CatalogQuery``: a term is a run of a brochure's `search_text`, tested with
/// `strpos` as SQLite tests it with `instr`), the order of sectors for a locale (``SectorOrder``, in the
/// method layer: ICU's collation, not the server's, so both backends order alike). Imports take the
/// catalog's write lock first, so those of several hosts serialise as on SQLite.
public final class PostgresCatalogService: CatalogService {
    let store: PostgresStore
    private let signal: ChangeSignal

    /// - Parameter signal: posted after every committed write.
    public init(store: PostgresStore, signal: ChangeSignal = ChangeSignal()) {
        self.store = store
        self.signal = signal
    }

    public func sectors() async throws -> [Sector] {
        try await store.read { [self] connection in try await Self.sectors(connection, id: nil, logger: store.logger) }
    }

    public func sector(id: Int64) async throws -> Sector? {
        try await store.read { [self] connection in try await Self.sectors(connection, id: id, logger: store.logger).first }
    }

    public func brochures(sectorId: Int64?, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        try await store.read { [self] connection in
            try await Self.brochures(connection, query: """
                SELECT \(unescaped: Self.brochureColumns) FROM catalog_brochure
                WHERE (\(sectorId)::bigint IS NULL OR sector_id = \(sectorId)) AND id > \(afterID) ORDER BY id LIMIT \(Int64(max(0, limit)))
                """, logger: store.logger)
        }
    }

    public func brochure(id: Int64) async throws -> Brochure? {
        try await store.read { [self] connection in
            try await Self.brochures(connection, query: "SELECT \(unescaped: Self.brochureColumns) FROM catalog_brochure WHERE id = \(id)",
                                     logger: store.logger).first
        }
    }

    public func search(_ query: CatalogQuery, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        guard !query.isEmpty else { return [] }
        // The terms are binds; only their count shapes the text.
        var binds = PostgresBindings(capacity: query.patterns.count + 2)
        binds.append(afterID)
        var sql = "SELECT \(Self.brochureColumns) FROM catalog_brochure WHERE id > $1"
        for pattern in query.patterns {
            binds.append(pattern)
            sql += " AND strpos(search_text, $\(binds.count)) > 0"
        }
        binds.append(Int64(max(0, limit)))
        sql += " ORDER BY id LIMIT $\(binds.count)"
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await store.read { [self] connection in try await Self.brochures(connection, query: statement, logger: store.logger) }
    }

    public func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> {
        let logger = store.logger
        let (committed, wrote) = try await store.write { connection in
            // Imports of every host take turns, so each reads what the one before it committed.
            try await Self.writeLock.take(connection, logger: logger)
            // What is stored under the batch's ids, read in one go; the merge then decides without a round trip each.
            let stored = try await Self.stored(batch, connection, logger: logger)
            let merge = CatalogMerge(batch, storedSector: { stored.sectors[$0] }, storedBrochure: { stored.brochures[$0] })
            for write in merge.writes { try await Self.store(write.entry, connection, logger: logger) }
            // The change records last: the log's head stays locked from the first until the commit.
            try await PostgresChangeLog.record(
                connection, merge.writes.map { PostgresChange(domain: catalogDomain, itemID: $0.entry.itemID, kind: $0.kind) }, logger: logger)
            let state = try await PostgresChangeLog.state(connection, domain: catalogDomain, logger: logger)
            return (Committed(merge.counts, state: state), !merge.writes.isEmpty)
        }
        if wrote { signal.post() }
        return committed
    }

    public func state() async throws -> String {
        try await store.read { [self] connection in try await PostgresChangeLog.state(connection, domain: catalogDomain, logger: store.logger) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await store.read { [self] connection in
            try await PostgresChangeLog.changes(connection, domain: catalogDomain, since: sinceState, limit: limit, logger: store.logger)
        }
    }
}
