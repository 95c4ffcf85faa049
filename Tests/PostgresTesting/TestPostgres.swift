import Foundation
import Logging
import Synchronization
import PostgresNIO
import SwitchboardPostgres

/// The throwaway server `scripts/pg-cluster` starts for the tests (scripts/test runs the suites inside
/// `pg-cluster run`). Its variables: SWITCHBOARD_TEST_POSTGRES_URL (TCP, with the password),
/// …_SOCKET (the socket's folder), …_PORT, …_PASSWORD, …_CA (the CA of its certificate, for `localhost`).
public enum TestPostgres {
    public static let environment = ProcessInfo.processInfo.environment
    public static let url = environment["SWITCHBOARD_TEST_POSTGRES_URL"]
    public static var isAvailable: Bool { url != nil }
    /// Why a PostgreSQL suite is skipped (`.enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason))`).
    public static let skipReason =
        "SWITCHBOARD_TEST_POSTGRES_URL is not set: run scripts/test, or `scripts/pg-cluster run -- swift test` (docs/postgres.md)"

    public static var port: Int { Int(environment["SWITCHBOARD_TEST_POSTGRES_PORT"] ?? "") ?? 0 }
    public static var password: String { environment["SWITCHBOARD_TEST_POSTGRES_PASSWORD"] ?? "" }
    public static var socketDirectory: String { environment["SWITCHBOARD_TEST_POSTGRES_SOCKET"] ?? "" }
    public static var certificateAuthority: String { environment["SWITCHBOARD_TEST_POSTGRES_CA"] ?? "" }

    public static let logger = Logger(label: "switchboard.postgres.tests") { _ in SwiftLogNoOpLogHandler() }

    /// Settings for the test server's URL, with no `PG*` variables or password file in the way.
    public static func settings(url: String? = Self.url, environment: [String: String] = [:]) throws -> PostgresSettings {
        try PostgresSettings.resolve(url: url, environment: environment, home: "/nonexistent", systemUser: "nobody")
    }

    public static func connect(_ settings: PostgresSettings) async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration: try settings.connectionConfiguration(), id: 7, logger: logger)
    }

    /// Runs `body` with settings for a new, empty database of its own (tests run in parallel), dropped after.
    public static func withFreshDatabase<T>(_ body: (PostgresSettings) async throws -> T) async throws -> T {
        let admin = try settings()
        let name = "sb_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let connection = try await connect(admin)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        var settings = admin
        settings.database = name
        do {
            let result = try await body(settings)
            try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: logger)
            try await connection.close()
            return result
        } catch {
            _ = try? await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: logger)
            try? await connection.close()
            throw error
        }
    }

    /// Runs `body` with a store on a new, empty database migrated with `migrations` (the change log's
    /// first), closed and dropped after.
    public static func withFreshStore<T>(migrations: [PostgresMigrations], _ body: (PostgresStore) async throws -> T) async throws -> T {
        try await withFreshDatabase { settings in
            let store = try await PostgresStore.open(settings, migrations: migrations, logger: logger)
            do {
                let result = try await body(store)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }

    /// How many lock requests in the current database wait (advisory, row or transaction locks).
    public static func waitingLocks(_ connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("""
            SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database OR l.database IS NULL
            WHERE NOT l.granted AND d.datname = current_database()
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// A port on 127.0.0.1 nothing listens on (bound, then closed).
    public static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A number tasks share (an `Atomic` cannot be captured by a task's closure itself).
public final class SharedCount: Sendable {
    private let atomic = Atomic<Int>(0)

    public init() {}

    @discardableResult
    public func add(_ amount: Int = 1) -> Int { atomic.add(amount, ordering: .sequentiallyConsistent).newValue }
    public var value: Int { atomic.load(ordering: .sequentiallyConsistent) }
}


extension TestPostgres {
    /// The test server's URL (with its password) for the database of `settings`: what a host is started with.
    public static func url(for settings: PostgresSettings) -> String {
        (url ?? "").replacingOccurrences(of: "/postgres?", with: "/\(settings.database)?")
    }

    /// The server processes serving `database` other than the caller's own.
    public static func backends(of database: String, _ connection: PostgresConnection) async throws -> [Int32] {
        var pids: [Int32] = []
        for try await pid in try await connection.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = \(database) AND pid <> pg_backend_pid()", logger: logger
        ).decode(Int32.self) {
            pids.append(pid)
        }
        return pids
    }

    /// Ends every connection to `database` but the caller's (`pg_terminate_backend`), as a server restart or
    /// a network failure would; returns how many it ended.
    @discardableResult
    public static func terminateBackends(of database: String, _ connection: PostgresConnection) async throws -> Int {
        var ended = 0
        for try await done in try await connection.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(database) AND pid <> pg_backend_pid()", logger: logger
        ).decode(Bool.self) where done {
            ended += 1
        }
        return ended
    }
}

extension TestPostgres {
    /// Waits until `condition` holds, asking again after each answer (each look is a round trip to the
    /// server: the wait follows the server's state, not a clock). Throws after 100,000 looks.
    public static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<100_000 {
            if try await condition() { return }
            await Task.yield()
        }
        throw TestPostgresGaveUp(what: what)
    }
}

/// A wait of ``TestPostgres/waitUntil(_:_:)`` that never saw its condition hold.
public struct TestPostgresGaveUp: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "gave up waiting until \(what)" }
}
