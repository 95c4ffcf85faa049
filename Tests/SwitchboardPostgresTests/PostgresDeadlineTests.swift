import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Testing

/// A server that is down or never answers must not hold a request for good: the lease of a connection
/// is bounded by `connect_timeout`, the work on it by the answer timeout; each fails as storage
/// unavailable (-32050) saying why, and the store serves again once the server is back. On a cluster of
/// the test's own, which it stops and freezes.
@Suite("PostgreSQL: a server that is down or never answers", .serialized, .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresDeadlineTests {
    static func one(_ store: PostgresStore) async throws -> Int {
        try await store.read { connection in
            var values: [Int] = []
            for try await value in try await connection.query("SELECT 1", logger: TestPostgres.logger).decode(Int.self) { values.append(value) }
            return values.first ?? 0
        }
    }

    /// A read once the server is back: the pool may need a few tries to connect again.
    static func servedAgain(_ store: PostgresStore) async throws -> Int {
        var last: (any Error)?
        for _ in 0..<60 {
            do { return try await one(store) } catch { last = error }
        }
        throw last ?? CancellationError()
    }

    static func storageCause(_ error: any Error) -> String? {
        guard case .storageUnavailable(_, let cause)? = error as? ServiceError else { return nil }
        return cause
    }

    @Test("a frozen server: a read fails once the answer timeout passes, naming it; thawed, reads are served")
    func frozen() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            var settings = try TestPostgres.settings(url: cluster.url)
            settings.answerTimeoutSeconds = 1
            let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
            #expect(try await Self.one(store) == 1)
            try cluster.freeze()
            do {
                let failure = await #expect(throws: ServiceError.self) { try await Self.one(store) }
                #expect(failure.flatMap(Self.storageCause)?.contains("did not answer within 1 s") == true, "\(String(describing: failure))")
            }
            try cluster.thaw()
            #expect(try await Self.servedAgain(store) == 1)
            await store.close()
        }
    }

    @Test("a session of the pool left inside a transaction is ended by the server after the answer timeout (a frozen host's locks are let go)")
    func idleInTransaction() async throws {
        var settings = try TestPostgres.settings()
        settings.answerTimeoutSeconds = 7
        let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
        let shown = try await store.read { connection in
            var values: [String] = []
            for try await value in try await connection.query("SHOW idle_in_transaction_session_timeout", logger: TestPostgres.logger)
                .decode(String.self) { values.append(value) }
            return values.first ?? ""
        }
        #expect(shown == "7s")
        await store.close()
    }

    @Test("a stopped server: a read fails within connect_timeout, naming the refusal; started again, reads are served")
    func stopped() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            var settings = try TestPostgres.settings(url: cluster.url)
            settings.connectTimeoutSeconds = 2
            let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
            #expect(try await Self.one(store) == 1)
            try cluster.halt()
            for _ in 0..<2 {
                let failure = await #expect(throws: ServiceError.self) { try await Self.one(store) }
                let cause = failure.flatMap(Self.storageCause) ?? ""
                #expect(cause.contains("connection refused") || cause.contains("closed"), "\(cause)")
            }
            try cluster.resume()
            #expect(try await Self.servedAgain(store) == 1)
            await store.close()
        }
    }
}
