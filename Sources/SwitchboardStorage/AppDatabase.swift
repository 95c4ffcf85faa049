import GRDB

/// The one SQLite database of the host, through GRDB: WAL mode on disk, named migrations that each
/// domain contributes, and the change log they all share.
///
/// ```swift
/// let database = try AppDatabase(path: "/tmp/switchboard.sqlite", migrations: FeedStore.migrations)
/// let total = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") }
/// ```
public struct AppDatabase: Sendable {
    /// Reads and writes; a `DatabasePool` (WAL) on disk, a `DatabaseQueue` in memory.
    public let writer: any DatabaseWriter

    /// The path given, `:memory:` for a throwaway database.
    public let path: String

    /// Opens (creating if needed) the database at `path` and applies every migration not yet applied.
    public init(path: String, migrations: [DatabaseMigration]) throws {
        var configuration = Configuration()
        // Another host process (an editor and a script) may be writing: wait for it, do not fail.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        if path == ":memory:" {
            writer = try DatabaseQueue(configuration: configuration)
        } else {
            writer = try DatabasePool(path: path, configuration: configuration)
        }
        self.path = path
        var migrator = DatabaseMigrator()
        for migration in [ChangeLog.migration, ChangeLog.floorMigration] + migrations {
            migrator.registerMigration(migration.name, migrate: migration.apply)
        }
        try migrator.migrate(writer)
        try writer.write { db in try ChangeLog.prune(db) }
    }
}

extension AppDatabase {
    /// Runs `updates` in a write transaction: what every service write goes through.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(updates)
    }
}

/// One named schema step. Names are permanent: a new change is a new migration.
public struct DatabaseMigration: Sendable {
    public let name: String
    public let apply: @Sendable (Database) throws -> Void

    public init(_ name: String, apply: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.apply = apply
    }
}
