import Foundation
import PostgresNIO
import SwitchboardPostgres

extension TestPostgres {
    /// Runs `body` with the URL (TCP, with the password) of a new, empty database of its own, dropped
    /// after: what a spawned host is given as `--db`; and the database's name.
    public static func withFreshDatabaseURL<T>(_ body: (_ url: String, _ database: String) async throws -> T) async throws -> T {
        try await withFreshDatabase { settings in
            guard let url, var components = URLComponents(string: url) else { throw PostgresTestingError.noURL }
            components.path = "/" + settings.database
            guard let fresh = components.string else { throw PostgresTestingError.noURL }
            return try await body(fresh, settings.database)
        }
    }

    /// Ends every other session on `database` (`pg_terminate_backend`), as a server restart does for
    /// the hosts connected to it; returns how many it ended.
    @discardableResult
    public static func terminateSessions(database: String) async throws -> Int {
        var settings = try settings()
        settings.database = database
        let connection = try await connect(settings)
        var ended = 0
        do {
            let rows = try await connection.query("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """, logger: logger)
            for try await terminated in rows.decode(Bool.self) where terminated { ended += 1 }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return ended
    }
}

/// The test server's URL is missing or not a URL.
public enum PostgresTestingError: Error {
    case noURL
}
