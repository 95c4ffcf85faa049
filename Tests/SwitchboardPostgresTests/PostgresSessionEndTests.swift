import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Testing

/// Work on a connection whose session the server ends: postgres-nio drops a statement given to a
/// connection whose socket has closed, unanswered; the store's reads and writes fail with the
/// storage error instead of waiting for it, and the pool serves the next request.
@Suite("PostgreSQL: a session the server ends under a read or a write", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresSessionEndTests {
    /// Ends `connection`'s session from `admin` and waits until its socket has closed.
    static func endSession(of connection: PostgresConnection, from admin: PostgresConnection) async throws {
        var pid: Int32 = 0
        for try await backend in try await connection.query("SELECT pg_backend_pid()", logger: TestPostgres.logger).decode(Int32.self) {
            pid = backend
        }
        try await admin.query("SELECT pg_terminate_backend(\(pid))", logger: TestPostgres.logger)
        try await connection.closeFuture.get()
    }

    @Test("a write whose session ends between two statements, and a read, fail with -32050's storage error; the next request is served")
    func sessionEndedBetweenStatements() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let store = try await PostgresStore.open(settings, migrations: [], logger: TestPostgres.logger)
            let admin = try await TestPostgres.connect(settings)
            do {
                let write = await #expect(throws: ServiceError.self) {
                    try await store.write { connection in
                        try await Self.endSession(of: connection, from: admin)
                        // Given to a closed connection: postgres-nio never answers it.
                        try await connection.query("SELECT 1", logger: TestPostgres.logger)
                    }
                }
                let read = await #expect(throws: ServiceError.self) {
                    try await store.read { connection in
                        try await Self.endSession(of: connection, from: admin)
                        try await connection.query("SELECT 1", logger: TestPostgres.logger)
                    }
                }
                for error in [write, read] {
                    guard case .storageUnavailable(_, let cause)? = error else {
                        Issue.record("expected storageUnavailable, got \(String(describing: error))")
                        continue
                    }
                    #expect(cause.contains(settings.serverName))
                }
                // The pool connects again.
                let answer = try await store.read { connection in
                    var values: [Int] = []
                    for try await value in try await connection.query("SELECT 40 + 2", logger: TestPostgres.logger).decode(Int.self) {
                        values.append(value)
                    }
                    return values
                }
                #expect(answer == [42])
            } catch {
                try? await admin.close()
                await store.close()
                throw error
            }
            try await admin.close()
            await store.close()
        }
    }
}
