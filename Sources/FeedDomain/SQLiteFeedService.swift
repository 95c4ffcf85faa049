import GRDB
import SwitchboardCore
import SwitchboardStorage

/// The feed in SQLite: one row per item, keyed by its dense id, so every page is an index range scan
/// (`WHERE id > ? ORDER BY id LIMIT ?`) that costs the same on page 1 and page 20,000.
public struct SQLiteFeedService: FeedService {
    public let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public static let migrations = [
        DatabaseMigration("feed-v1") { db in
            try db.execute(sql: """
                CREATE TABLE feed_item (
                    id INTEGER PRIMARY KEY,
                    account_id INTEGER NOT NULL,
                    display_name TEXT NOT NULL,
                    reputation INTEGER NOT NULL,
                    user_type TEXT NOT NULL,
                    gold INTEGER NOT NULL,
                    silver INTEGER NOT NULL,
                    bronze INTEGER NOT NULL,
                    profile_image TEXT,
                    location TEXT,
                    website_url TEXT
                )
                """)
        },
    ]

    static let columns = "id, account_id, display_name, reputation, user_type, gold, silver, bronze, profile_image, location, website_url"

    public func items(after afterID: Int64, limit: Int) async throws -> [Profile] {
        try database.read { db in try Self.items(db, after: afterID, limit: limit) }
    }

    public func slice(after afterID: Int64, limit: Int) async throws -> FeedSlice {
        try database.read { db in
            FeedSlice(items: try Self.items(db, after: afterID, limit: limit), total: try Self.total(db),
                      state: try ChangeLog.state(db, domain: feedDomain))
        }
    }

    /// Rows are read from the statement as they are stepped (a cursor's rows are not copied), and each
    /// column with SQLite's own accessor: no `DatabaseValue` per column, no generic decoding.
    static func items(_ db: Database, after afterID: Int64, limit: Int) throws -> [Profile] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(columns) FROM feed_item WHERE id > ? ORDER BY id LIMIT ?"),
                                       arguments: [afterID, limit])
        var items: [Profile] = []
        items.reserveCapacity(limit)
        while let row = try rows.next() { items.append(try profile(row)) }
        return items
    }

    /// `max(id)`: the ids are dense, and this is an index look-up where `count(*)` scans the table.
    static func total(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM feed_item")) ?? 0
    }

    public func item(id: Int64) async throws -> Profile? {
        try database.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.columns) FROM feed_item WHERE id = ?"), arguments: [id]).map { try Self.profile($0) }
        }
    }

    public func count() async throws -> Int64 {
        try database.read { db in try Self.total(db) }
    }

    public func state() async throws -> String {
        try database.read { db in try ChangeLog.state(db, domain: feedDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try database.read { db in try ChangeLog.changes(db, domain: feedDomain, since: sinceState, limit: limit) }
    }

    public func append(_ profiles: [Profile]) async throws -> Committed<[Profile]> {
        try await database.write { db in
            let stored = FeedAppend.numbered(profiles, after: try Self.total(db))
            for profile in stored {
                try Self.insert(profile, db)
                try ChangeLog.record(db, domain: feedDomain, itemID: FeedAppend.changeID(profile), kind: .created)
            }
            return Committed(stored, state: try ChangeLog.state(db, domain: feedDomain))
        }
    }

    /// Writes the demo items `1...count` (not change-logged: they are the starting state), reporting
    /// progress every 10,000 rows.
    public static func seed(_ db: Database, count: Int, progress: (Int) -> Void = { _ in }) throws {
        for id in 1...Int64(max(count, 1)) where count > 0 {
            try insert(DemoFeed.profile(id), db)
            if id % 10_000 == 0 { progress(Int(id)) }
        }
        progress(count)
    }

    static func insert(_ profile: Profile, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO feed_item(\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
            profile.id, profile.accountId, profile.displayName, profile.reputation, profile.userType,
            profile.badgeCounts.gold, profile.badgeCounts.silver, profile.badgeCounts.bronze,
            profile.profileImage, profile.location, profile.websiteUrl,
        ])
    }

    /// GRDB's `StatementColumnConvertible` fast path: on a row of a cursor each column is read with
    /// `sqlite3_column_*` directly. A value of the wrong type (a damaged file) throws, never traps.
    static func profile(_ row: Row) throws -> Profile {
        try Profile(
            id: row.decode(atIndex: 0), accountId: row.decode(atIndex: 1), displayName: row.decode(atIndex: 2),
            reputation: row.decode(atIndex: 3), userType: row.decode(atIndex: 4),
            badgeCounts: BadgeCounts(gold: row.decode(atIndex: 5), silver: row.decode(atIndex: 6), bronze: row.decode(atIndex: 7)),
            profileImage: row.decode(atIndex: 8), location: row.decode(atIndex: 9), websiteUrl: row.decode(atIndex: 10)
        )
    }
}
