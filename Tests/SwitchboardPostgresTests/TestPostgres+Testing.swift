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

    /// Waits until `condition` holds, asking again after each answer (each look is a round trip to the
    /// server: the wait follows the server's state, not a clock). Fails after 100,000 looks.
    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<100_000 {
            if try await condition() { return }
            await Task.yield()
        }
        Issue.record("gave up waiting until \(what)")
        throw CancellationError()
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
