import CatalogDomain
import GRDB
import PostgresNIO
import PostgresTesting
import SwitchboardPostgres
import SwitchboardStorage
import Testing

/// A brochure an older switchboard stored keeps that switchboard's folding in `search_text` (`İ`'s
/// combining dot, `ς`, `ſ`), which today's folded queries do not match: opening the catalog folds
/// it again, once, on SQLite and PostgreSQL.
@Suite("Catalog search text folded again")
struct CatalogRefoldTests {
    static let title = "İstanbul Οδος Maſs"
    /// How switchboards before the change folded ``title`` and the retailer `Ann`.
    static let olderFolding = " i\u{0307}stanbul οδος maſs | ann "
    static let queries = ["istanbul", "İSTANBUL", "οδοσ", "ΟΔΟΣ", "mass"]

    static func hits(_ catalog: any CatalogService, _ query: String) async throws -> Int {
        try await catalog.search(CatalogQuery(query), after: 0, limit: 10).count
    }

    @Test("SQLite: the older folding is found by none of the queries before, by each after; the second opening writes nothing")
    func sqlite() async throws {
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteCatalogService.migrations)
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO catalog_sector(id, name) VALUES (1, 'Shops')")
            try db.execute(sql: "INSERT INTO catalog_brochure(id, sector_id, title, retailer_name, search_text) VALUES (1, 1, ?, 'Ann', ?)",
                           arguments: [Self.title, Self.olderFolding])
        }
        let catalog = SQLiteCatalogService(database: database)
        let before = (try await Self.hits(catalog, "istanbul"), try await Self.hits(catalog, "mass"))
        #expect(before == (0, 0), "the older folding is in place")
        #expect(try await SQLiteCatalogService.refoldSearch(database) == 1)
        for query in Self.queries {
            let found = try await Self.hits(catalog, query)
            #expect(found == 1, "\(query)")
        }
        #expect(try await SQLiteCatalogService.refoldSearch(database) == 0)
    }

    @Test("PostgreSQL: the same", .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
    func postgres() async throws {
        try await TestPostgres.withFreshStore(migrations: [PostgresCatalogService.migrations]) { store in
            _ = try await store.write { connection in
                try await connection.query("INSERT INTO catalog_sector(id, name) VALUES (1, 'Shops')", logger: store.logger)
                try await connection.query("""
                    INSERT INTO catalog_brochure(id, sector_id, title, retailer_name, search_text)
                    VALUES (1, 1, \(Self.title), 'Ann', \(Self.olderFolding))
                    """, logger: store.logger)
            }
            let catalog = PostgresCatalogService(store: store)
            let before = (try await Self.hits(catalog, "istanbul"), try await Self.hits(catalog, "mass"))
            #expect(before == (0, 0), "the older folding is in place")
            #expect(try await PostgresCatalogService.refoldSearch(store, logger: store.logger) == 1)
            for query in Self.queries {
                let found = try await Self.hits(catalog, query)
                #expect(found == 1, "\(query)")
            }
            #expect(try await PostgresCatalogService.refoldSearch(store, logger: store.logger) == 0)
        }
    }
}
