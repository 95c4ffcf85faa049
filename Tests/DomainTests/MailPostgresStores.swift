import PostgresTesting
import SwitchboardPostgres
import Testing

/// The PostgreSQL stores a mail test case opens (``MailBackend/postgres``): ``PostgresStores`` of the
/// suite's `.postgresStores` scope; a case is cancelled (skipped) where no test server runs.
enum PostgresTestStores {
    /// A store on a new, empty database, migrated with `migrations`, closed when the test case ends.
    static func open(migrations: [PostgresMigrations]) async throws -> PostgresStore {
        guard TestPostgres.isAvailable else { try Test.cancel(Comment(rawValue: TestPostgres.skipReason)) }
        return try await PostgresStores.fresh(migrations: migrations)
    }
}
