import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

extension PostgresCatalogService {
    /// ``SQLiteCatalogService/refoldSearch(_:)`` on PostgreSQL: folds again the `search_text` of
    /// brochures an older switchboard folded; returns how many. Writes only when it finds some.
    public static func refoldSearch(_ store: PostgresStore, logger: Logger) async throws -> Int {
        guard try await !store.read({ try await stale($0, logger: logger) }).isEmpty else { return 0 }
        return try await store.write { connection in
            let stale = try await stale(connection, logger: logger)
            try await connection.query("""
                UPDATE catalog_brochure AS b SET search_text = v.text
                FROM unnest(\(stale.map(\.id)), \(stale.map(\.text))) AS v(id, text) WHERE b.id = v.id
                """, logger: logger)
            return stale.count
        }
    }

    /// The brochures folded the older way, each with its text folded now.
    private static func stale(_ connection: PostgresConnection, logger: Logger) async throws -> [(id: Int64, text: String)] {
        var rows: [(id: Int64, text: String)] = []
        let found = try await connection.query("SELECT id, title, retailer_name FROM catalog_brochure WHERE search_text ~ \(SearchTokens.olderFoldingPattern)",
                                               logger: logger)
        for try await (id, title, retailer) in found.decode((Int64, String, String).self) {
            rows.append((id, CatalogQuery.searchText(title: title, retailerName: retailer)))
        }
        return rows
    }
}
