import Foundation
import Logging
import PostgresNIO
import PostgresTesting
import SwitchboardPostgres
import Synchronization
import Testing

/// The PostgreSQL stores a test case opens (``MailBackend/postgres``), each on a fresh database of its
/// own, closed and their databases dropped when the test case ends: the trait `.postgresStores` on a
/// suite gives each of its test cases this scope.
final class PostgresTestStores: Sendable {
    @TaskLocal static var current: PostgresTestStores?

    private let opened = Mutex<[(store: PostgresStore, database: String)]>([])

    /// A store on a new, empty database, migrated with `migrations`, closed when the test case ends.
    static func open(migrations: [PostgresMigrations]) async throws -> PostgresStore {
        guard TestPostgres.isAvailable else { try Test.cancel(Comment(rawValue: TestPostgres.skipReason)) }
        guard let scope = current else { throw MissingScope() }
        let admin = try TestPostgres.settings()
        var settings = admin
        settings.database = "sb_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await Self.admin { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(settings.database)"), logger: TestPostgres.logger) }
        let store: PostgresStore
        do {
            store = try await PostgresStore.open(settings, migrations: migrations, logger: TestPostgres.logger)
        } catch {
            try? await drop([settings.database])
            throw error
        }
        scope.opened.withLock { $0.append((store, settings.database)) }
        return store
    }

    /// Another store (another host's pool) on the database of `store`, closed when the test case ends.
    static func openAnother(_ store: PostgresStore, migrations: [PostgresMigrations]) async throws -> PostgresStore {
        guard let scope = current else { throw MissingScope() }
        let another = try await PostgresStore.open(store.settings, migrations: migrations, logger: TestPostgres.logger)
        scope.opened.withLock { $0.append((another, "")) }
        return another
    }

    /// Closes every store opened in the scope and drops its database.
    func closeAll() async throws {
        let stores = opened.withLock { opened in
            defer { opened.removeAll() }
            return opened
        }
        for (store, _) in stores { await store.close() }
        try await Self.drop(Array(Set(stores.map(\.database).filter { !$0.isEmpty })))
    }

    private static func drop(_ databases: [String]) async throws {
        guard !databases.isEmpty else { return }
        try await admin { connection in
            for database in databases {
                try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"), logger: TestPostgres.logger)
            }
        }
    }

    private static func admin(_ body: (PostgresConnection) async throws -> Void) async throws {
        let connection = try await TestPostgres.connect(try TestPostgres.settings())
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    struct MissingScope: Error, CustomStringConvertible {
        var description: String { "a test that opens a PostgreSQL store needs the .postgresStores trait on its suite" }
    }
}

/// Gives each test case of a suite its own ``PostgresTestStores``.
struct PostgresStoresTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let stores = PostgresTestStores()
        do {
            try await PostgresTestStores.$current.withValue(stores) { try await function() }
        } catch {
            try? await stores.closeAll()
            throw error
        }
        try await stores.closeAll()
    }
}

extension Trait where Self == PostgresStoresTrait {
    /// Each test case's PostgreSQL stores are closed, and their databases dropped, when it ends.
    static var postgresStores: Self { PostgresStoresTrait() }
}
