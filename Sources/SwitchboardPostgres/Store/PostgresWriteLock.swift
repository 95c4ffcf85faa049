import PostgresNIO

/// A domain's write lock: a transaction-level advisory lock each of the domain's writes takes first,
/// so the writes of every host serialise as one SQLite file's writers do: a write reads what the one
/// before it committed (two hosts importing one document: one creates, the other finds it `unchanged`).
public struct PostgresWriteLock: Sendable {
    /// The advisory lock's key, one per domain.
    public let key: Int64

    public init(key: Int64) {
        self.key = key
    }

    /// Waits for the lock, which is then held until the caller's transaction ends.
    public func take(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(key))", logger: logger)
    }
}
