import PostgresNIO

/// One named step of a domain's schema, run once per database (GRDB's `DatabaseMigration`, for
/// PostgreSQL). The body runs inside the migration transaction; it must not commit.
public struct PostgresMigration: Sendable {
    public let name: String
    public let body: @Sendable (PostgresConnection, Logger) async throws -> Void

    public init(_ name: String, body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// A migration made of SQL statements run in order (the extended protocol takes one statement at a time).
    public init(_ name: String, statements: [String]) {
        self.init(name) { connection, logger in
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }
    }
}

/// A domain's migrations, in the order they run. Names are recorded per domain, so two domains may use
/// the same name.
public struct PostgresMigrations: Sendable {
    public let domain: String
    public let migrations: [PostgresMigration]

    public init(domain: String, _ migrations: [PostgresMigration]) {
        self.domain = domain
        self.migrations = migrations
    }
}
