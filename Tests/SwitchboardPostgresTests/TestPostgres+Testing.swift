import PostgresNIO
import PostgresTesting
@testable import SwitchboardPostgres
import Testing

extension TestPostgres {
    static let skipComment = Comment(rawValue: skipReason)

    /// The error opening a store with `settings` gives (an issue is recorded when it opens).
    static func openFailure(_ settings: PostgresSettings) async -> PostgresStoreError? {
        await #expect(throws: PostgresStoreError.self) {
            try await PostgresStore.open(settings, migrations: [], logger: logger)
        }
    }
}

/// Whether CI, which always starts the cluster, forgot to: the PostgreSQL suites would be skipped silently.
@Suite("PostgreSQL test server")
struct TestPostgresPresenceTests {
    @Test("CI always runs the PostgreSQL suites: the test server's URL is set")
    func presentInCI() {
        if TestPostgres.environment["CI"] == "true" {
            #expect(TestPostgres.isAvailable, "CI=true but SWITCHBOARD_TEST_POSTGRES_URL is not set: scripts/test must run the tests inside scripts/pg-cluster run")
        }
    }
}
