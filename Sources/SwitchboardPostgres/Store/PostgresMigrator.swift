import PostgresNIO

/// Runs each domain's named migrations once per database, under a transaction-level advisory lock:
/// hosts starting together on an empty database take turns, the first migrates and the others find
/// the work done.
///
/// Each domain migrates in one transaction: its pending migrations all apply, or none does (PostgreSQL's
/// DDL is transactional). Applied names are kept in `switchboard_migrations(domain, name)`.
public enum PostgresMigrator {
    /// The advisory lock every migration transaction takes (one key for all domains: creating the
    /// bookkeeping table is shared).
    static let lockKey: Int64 = 0x5357_4D49_4752_0001

    /// What one run applied, per domain (empty when another host had already migrated).
    public typealias Applied = [String: [String]]

    /// Migrates every domain on `connection`, in order.
    /// - Throws: ``PostgresMigrationError``.
    @discardableResult
    public static func migrate(_ domains: [PostgresMigrations], on connection: PostgresConnection, logger: Logger) async throws(PostgresMigrationError) -> Applied {
        var applied: Applied = [:]
        for domain in domains {
            applied[domain.domain] = try await migrate(domain, on: connection, logger: logger)
        }
        return applied
    }

    private static func migrate(_ domain: PostgresMigrations, on connection: PostgresConnection, logger: Logger) async throws(PostgresMigrationError) -> [String] {
        if try await isCurrent(domain, on: connection, logger: logger) { return [] }
        var current = "(start)"
        do {
            return try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS switchboard_migrations (
                        domain TEXT NOT NULL,
                        name TEXT NOT NULL,
                        applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                        PRIMARY KEY (domain, name)
                    )
                    """, logger: logger)
                var done: Set<String> = []
                for try await name in try await connection.query(
                    "SELECT name FROM switchboard_migrations WHERE domain = \(domain.domain)", logger: logger
                ).decode(String.self) {
                    done.insert(name)
                }
                let known = Set(domain.migrations.map(\.name))
                let unknown = done.subtracting(known).sorted()
                guard unknown.isEmpty else { throw PostgresMigrationError.newerSchema(domain: domain.domain, unknown: unknown) }
                var applied: [String] = []
                for migration in domain.migrations where !done.contains(migration.name) {
                    current = migration.name
                    try await migration.body(connection, logger)
                    try await connection.query(
                        "INSERT INTO switchboard_migrations(domain, name) VALUES (\(domain.domain), \(migration.name))", logger: logger)
                    applied.append(migration.name)
                }
                return applied
            }
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? PostgresMigrationError { throw inner }
            let cause = error.closureError ?? error.commitError ?? error.beginError ?? error
            throw .failed(domain: domain.domain, migration: current, cause: PostgresErrorText.cause(of: cause))
        } catch let error as PostgresMigrationError {
            throw error
        } catch {
            throw .failed(domain: domain.domain, migration: current, cause: PostgresErrorText.cause(of: error))
        }
    }
}

extension PostgresMigrator {
    /// Whether `domain` has every migration applied already, read without a write or a lock: a database
    /// the host may only read (a standby, `default_transaction_read_only`, a role without CREATE) then
    /// opens, where the migration transaction's `CREATE TABLE IF NOT EXISTS` is refused. A database
    /// that holds migrations this version does not know is ``PostgresMigrationError/newerSchema(domain:unknown:)``.
    static func isCurrent(_ domain: PostgresMigrations, on connection: PostgresConnection, logger: Logger) async throws(PostgresMigrationError) -> Bool {
        var done: Set<String> = []
        do {
            var exists = false
            for try await found in try await connection.query(
                "SELECT to_regclass('switchboard_migrations') IS NOT NULL", logger: logger
            ).decode(Bool.self) {
                exists = found
            }
            guard exists else { return false }
            for try await name in try await connection.query(
                "SELECT name FROM switchboard_migrations WHERE domain = \(domain.domain)", logger: logger
            ).decode(String.self) {
                done.insert(name)
            }
        } catch {
            throw .failed(domain: domain.domain, migration: "(start)", cause: PostgresErrorText.cause(of: error))
        }
        let unknown = done.subtracting(domain.migrations.map(\.name)).sorted()
        guard unknown.isEmpty else { throw .newerSchema(domain: domain.domain, unknown: unknown) }
        return domain.migrations.allSatisfy { done.contains($0.name) }
    }
}

/// Why a domain's schema could not be brought up to date.
public enum PostgresMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `migration` of `domain` failed; nothing of the domain's pending migrations was applied.
    case failed(domain: String, migration: String, cause: String)
    /// The database holds migrations this version does not know: a newer switchboard migrated it.
    case newerSchema(domain: String, unknown: [String])

    public var description: String {
        switch self {
        case .failed(let domain, let migration, let cause):
            "the \(domain) schema could not be migrated (\(migration)); nothing of it was applied: \(cause)"
        case .newerSchema(let domain, let unknown):
            "the database's \(domain) schema is newer than this switchboard (it has \(unknown.prefix(3).joined(separator: ", "))\(unknown.count > 3 ? ", …" : "")): update switchboard"
        }
    }
}
