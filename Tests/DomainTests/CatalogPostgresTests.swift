import CatalogDomain
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Testing

/// What only PostgreSQL has: several catalog services (hosts, each with its own pool) on one database at once.
@Suite("Catalog on PostgreSQL: several hosts on one database", .postgresStores,
       .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct CatalogPostgresTests {
    static let document: [CatalogEntry] = [
        .sector(SectorEntry(id: 1, name: "Öl & Heizung", imageUrl: nil)),
        .brochure(Brochure(id: 10, sectorId: 1, title: "Heizöl", retailerName: "Tank", coverUrl: nil)),
    ]

    @Test("the same document imported by two hosts at once: one creates it, the other finds it stored, as one SQLite file's writers take turns")
    func importsSerialise() async throws {
        let store = try await PostgresStores.fresh(migrations: [PostgresCatalogService.migrations])
        let first = PostgresCatalogService(store: store)
        let second = PostgresCatalogService(store: try await PostgresStores.another(store, migrations: [PostgresCatalogService.migrations]))
        let start = try await first.state()
        // A third connection holds the change log's head, where each import records its changes last.
        let holder = try await TestPostgres.connect(store.settings), watcher = try await TestPostgres.connect(store.settings)
        try await holder.query("BEGIN", logger: TestPostgres.logger)
        try await holder.query("SELECT sequence FROM change_log_head WHERE id = 1 FOR UPDATE", logger: TestPostgres.logger)
        let finished = SharedCount()
        let one = Task {
            defer { finished.add() }
            return try await first.importBatch(Self.document)
        }
        // Until the first import waits for the head (its rows written, not committed), then until the second
        // waits too (for the first), or, were either not to wait, has finished (then the expectations below tell).
        while finished.value == 0, try await TestPostgres.waitingLocks(watcher) < 1 { try Task.checkCancellation(); await Task.yield() }
        let two = Task {
            defer { finished.add() }
            return try await second.importBatch(Self.document)
        }
        while finished.value == 0, try await TestPostgres.waitingLocks(watcher) < 2 { try Task.checkCancellation(); await Task.yield() }
        try await holder.query("COMMIT", logger: TestPostgres.logger)
        let created = try await one.value, again = try await two.value
        try await holder.close()
        try await watcher.close()
        #expect(created.value == CatalogImportCounts(sectors: ImportCounts(created: 1), brochures: ImportCounts(created: 1)))
        #expect(again.value == CatalogImportCounts(sectors: ImportCounts(unchanged: 1), brochures: ImportCounts(unchanged: 1)))
        #expect(again.state == created.state)
        let changes = try await second.changes(since: start, limit: 10)
        #expect(changes.created == ["sector/1", "brochure/10"] && changes.updated.isEmpty && changes.newState == created.state)
    }
}
