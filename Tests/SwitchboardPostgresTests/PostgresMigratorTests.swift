import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Testing

/// Named migrations per domain, once per database, under the migrator's advisory lock.
@Suite("PostgreSQL: migrations", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresMigratorTests {
    static let notes = PostgresMigrations(domain: "notes", [
        PostgresMigration("notes-v1", statements: ["CREATE TABLE notes (id BIGINT PRIMARY KEY, text TEXT NOT NULL)"]),
        PostgresMigration("notes-v2", statements: ["ALTER TABLE notes ADD COLUMN pinned BOOLEAN NOT NULL DEFAULT false"]),
    ])

    static func appliedNames(_ connection: PostgresConnection) async throws -> [String] {
        var names: [String] = []
        let rows = try await connection.query("SELECT domain || '/' || name FROM switchboard_migrations ORDER BY domain, name", logger: TestPostgres.logger)
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    @Test("a database the host may only read (default_transaction_read_only) opens once migrated: reads work, a write is -32051's read-only error")
    func readOnlyDatabase() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let first = try await PostgresStore.open(settings, migrations: [Self.notes], logger: TestPostgres.logger)
            _ = try await first.write { connection in
                try await connection.query("INSERT INTO notes(id, text) VALUES (1, 'kept')", logger: TestPostgres.logger)
            }
            await first.close()
            let admin = try await TestPostgres.connect(settings)
            try await admin.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(settings.database) SET default_transaction_read_only = on"),
                                  logger: TestPostgres.logger)
            try await admin.close()

            let store = try await PostgresStore.open(settings, migrations: [Self.notes], logger: TestPostgres.logger)
            let count = try await store.read { connection in
                var counts: [Int] = []
                for try await count in try await connection.query("SELECT count(*)::bigint FROM notes", logger: TestPostgres.logger)
                    .decode(Int.self) { counts.append(count) }
                return counts.first ?? -1
            }
            #expect(count == 1)
            let refused = await #expect(throws: ServiceError.self) {
                try await store.write { connection in
                    try await connection.query("INSERT INTO notes(id, text) VALUES (2, 'refused')", logger: TestPostgres.logger)
                }
            }
            guard case .storageReadOnly(_, let cause)? = refused else {
                Issue.record("expected storageReadOnly, got \(String(describing: refused))")
                return
            }
            #expect(cause.contains("25006") && cause.contains("reads still work"), "\(cause)")
            await store.close()
        }
    }

    @Test("two hosts starting at once on an empty database both come up; each domain is migrated once, by one of them, and the other finds it done")
    func twoStarters() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            // Hold the migrations' lock so both starters are surely waiting for it at once, then let go.
            let gate = try await TestPostgres.connect(settings)
            try await gate.query("BEGIN", logger: TestPostgres.logger)
            try await gate.query("SELECT pg_advisory_xact_lock(\(PostgresMigrator.lockKey))", logger: TestPostgres.logger)

            async let first = PostgresStore.open(settings, migrations: [Self.notes], logger: TestPostgres.logger)
            async let second = PostgresStore.open(settings, migrations: [Self.notes], logger: TestPostgres.logger)
            try await TestPostgres.waitUntil("both starters wait for the migrations' lock") {
                try await TestPostgres.waitingLocks(gate) == 2
            }
            try await gate.query("COMMIT", logger: TestPostgres.logger)
            let stores = try await [first, second]

            // Each domain migrates in a transaction of its own under the lock, so the two may share the work
            // domain by domain (one takes the change log, the other the notes), but each domain's migrations are
            // applied once, all by one of them.
            let applied: [PostgresMigrator.Applied] = stores.map(\.applied)
            var names: [String] = []
            for run in applied { names += run.values.joined() }
            #expect(names.sorted() == ["change-log-v1", "notes-v1", "notes-v2"], "\(applied)")
            for domain in ["changelog", "notes"] {
                let migrating = applied.filter { !($0[domain] ?? []).isEmpty }.count
                #expect(migrating == 1, "\(domain): \(applied)")
            }
            #expect(try await Self.appliedNames(gate) == ["changelog/change-log-v1", "notes/notes-v1", "notes/notes-v2"])
            try await gate.query("INSERT INTO notes(id, text, pinned) VALUES (1, 'both up', true)", logger: TestPostgres.logger)

            // A third start later migrates nothing.
            let third = try await PostgresStore.open(settings, migrations: [Self.notes], logger: TestPostgres.logger)
            let nothingApplied = third.applied.values.allSatisfy(\.isEmpty)
            #expect(nothingApplied)
            for store in stores + [third] { await store.close() }
            try await gate.close()
        }
    }

    @Test("a failing migration applies nothing of its domain and names the migration, not the SQL")
    func failingMigration() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let broken = PostgresMigrations(domain: "notes", Self.notes.migrations + [
                PostgresMigration("notes-v3", statements: ["CREATE TABLE more (id BIGINT)", "SELECT no_such_function()"]),
            ])
            let error = await #expect(throws: PostgresStoreError.self) {
                try await PostgresStore.open(settings, migrations: [broken], logger: TestPostgres.logger)
            }
            #expect(error?.description.contains("notes-v3") == true, "\(String(describing: error))")
            #expect(error?.description.contains("nothing of it was applied") == true)
            let connection = try await TestPostgres.connect(settings)
            // The change log's domain migrated in its own transaction; none of notes' did.
            #expect(try await Self.appliedNames(connection) == ["changelog/change-log-v1"])
            let tables = try await connection.query("SELECT count(*) FROM pg_tables WHERE tablename IN ('notes', 'more')", logger: TestPostgres.logger)
            for try await count in tables.decode(Int64.self) { #expect(count == 0) }
            try await connection.close()
        }
    }

    @Test("a database a newer switchboard migrated is refused, naming what it does not know")
    func newerSchema() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let newer = PostgresMigrations(domain: "notes", Self.notes.migrations + [PostgresMigration("notes-v9", statements: ["SELECT 1"])])
            let store = try await PostgresStore.open(settings, migrations: [newer], logger: TestPostgres.logger)
            await store.close()
            let error = await #expect(throws: PostgresStoreError.self) {
                try await PostgresStore.open(settings, migrations: [Self.notes], logger: TestPostgres.logger)
            }
            #expect(error == .migration(settings: settings.redactedDescription, .newerSchema(domain: "notes", unknown: ["notes-v9"])))
        }
    }
}
