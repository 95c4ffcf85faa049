import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// The feed on PostgreSQL: one row per item keyed by its dense id, as on SQLite, so a page is an index
/// range scan (`WHERE id > $1 ORDER BY id LIMIT $2`) and its cursor is the same as SQLite's.
///
/// The demo million rows go in with one `COPY … FROM STDIN` (``seed(_:count:logger:progress:)``).
public final class PostgresFeedService: FeedService {
    private let store: PostgresStore
    private let signal: ChangeSignal

    /// - Parameter signal: posted after every committed append.
    public init(store: PostgresStore, signal: ChangeSignal = ChangeSignal()) {
        self.store = store
        self.signal = signal
    }

    /// The feed's schema, domain `feed`. Integers are BIGINT: every value of a `Profile` round-trips.
    public static let migrations = PostgresMigrations(domain: feedDomain, [
        PostgresMigration("feed-v1", statements: [
            """
            CREATE TABLE feed_item (
                id BIGINT PRIMARY KEY,
                account_id BIGINT NOT NULL,
                display_name TEXT NOT NULL,
                reputation BIGINT NOT NULL,
                user_type TEXT NOT NULL,
                gold BIGINT NOT NULL,
                silver BIGINT NOT NULL,
                bronze BIGINT NOT NULL,
                profile_image TEXT,
                location TEXT,
                website_url TEXT
            )
            """,
        ]),
    ])

    static let columns = ["id", "account_id", "display_name", "reputation", "user_type", "gold", "silver", "bronze",
                          "profile_image", "location", "website_url"]
    private static let selectList = columns.joined(separator: ", ")
    /// Serialises appends of every host: each numbers its items from the feed's last id.
    private static let appendLock: Int64 = 0x5357_4645_4544_0001

    public func items(after afterID: Int64, limit: Int) async throws -> [Profile] {
        try await store.read { [self] connection in try await Self.items(connection, after: afterID, limit: limit, logger: store.logger) }
    }

    public func slice(after afterID: Int64, limit: Int) async throws -> FeedSlice {
        // One statement, so the items, the total and the state come from one snapshot.
        try await store.read { [self] connection in
            let rows = try await connection.query("""
                SELECT (SELECT coalesce(max(id), 0) FROM feed_item), \(unescaped: PostgresChangeLog.latestPosition), f.*
                FROM (SELECT 1) one
                LEFT JOIN LATERAL (
                    SELECT \(unescaped: Self.selectList) FROM feed_item WHERE id > \(afterID) ORDER BY id LIMIT \(Int64(max(0, limit)))
                ) f ON true
                ORDER BY f.id
                """, logger: store.logger)
            var items: [Profile] = []
            var total: Int64 = 0
            var sequence: Int64?
            for try await row in rows.decode(
                (Int64, Int64?, Int64?, Int64?, String?, Int64?, String?, Int64?, Int64?, Int64?, String?, String?, String?).self) {
                total = row.0
                sequence = row.1
                if let id = row.2, let accountId = row.3, let displayName = row.4, let reputation = row.5,
                   let userType = row.6, let gold = row.7, let silver = row.8, let bronze = row.9 {
                    items.append(Profile(id: id, accountId: accountId, displayName: displayName, reputation: reputation, userType: userType,
                                         badgeCounts: BadgeCounts(gold: gold, silver: silver, bronze: bronze),
                                         profileImage: row.10, location: row.11, websiteUrl: row.12))
                }
            }
            guard let sequence else { throw PostgresChangeLogError.missingHead }
            return FeedSlice(items: items, total: total, state: ChangeTracking.state(domain: feedDomain, sequence: sequence))
        }
    }

    public func item(id: Int64) async throws -> Profile? {
        try await store.read { [self] connection in
            let rows = try await connection.query("SELECT \(unescaped: Self.selectList) FROM feed_item WHERE id = \(id)", logger: store.logger)
            return try await Self.profiles(rows).first
        }
    }

    public func count() async throws -> Int64 {
        try await store.read { [self] connection in try await Self.total(connection, logger: store.logger) }
    }

    public func state() async throws -> String {
        try await store.read { [self] connection in try await PostgresChangeLog.state(connection, domain: feedDomain, logger: store.logger) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await store.read { [self] connection in
            try await PostgresChangeLog.changes(connection, domain: feedDomain, since: sinceState, limit: limit, logger: store.logger)
        }
    }

    public func append(_ profiles: [Profile]) async throws -> Committed<[Profile]> {
        let committed = try await store.write { [self] connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.appendLock))", logger: store.logger)
            let stored = FeedAppend.numbered(profiles, after: try await Self.total(connection, logger: store.logger))
            try await PostgresCopy.rows(into: "feed_item", columns: Self.columns, count: stored.count, on: connection,
                                        logger: store.logger) { index, row in Self.fill(&row, stored[index]) }
            for profile in stored {
                try await PostgresChangeLog.record(connection, domain: feedDomain, itemID: FeedAppend.changeID(profile), kind: .created,
                                                   logger: store.logger)
            }
            return Committed(stored, state: try await PostgresChangeLog.state(connection, domain: feedDomain, logger: store.logger))
        }
        if !profiles.isEmpty { signal.post() }
        return committed
    }

    /// Writes the demo items `1...count` with one COPY (not change-logged: they are the starting state),
    /// in the caller's transaction, reporting the rows written so far.
    public static func seed(_ connection: PostgresConnection, count: Int, logger: Logger, progress: (Int) -> Void = { _ in }) async throws {
        try await PostgresCopy.rows(into: "feed_item", columns: columns, count: count, on: connection, logger: logger,
                                    progress: progress) { index, row in fill(&row, DemoFeed.profile(Int64(index) + 1)) }
    }

    /// How many items the feed holds (`max(id)`: ids are dense, and that is an index look-up).
    public static func total(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await total in try await connection.query("SELECT coalesce(max(id), 0) FROM feed_item", logger: logger).decode(Int64.self) {
            return total
        }
        return 0
    }

    static func items(_ connection: PostgresConnection, after afterID: Int64, limit: Int, logger: Logger) async throws -> [Profile] {
        let rows = try await connection.query(
            "SELECT \(unescaped: selectList) FROM feed_item WHERE id > \(afterID) ORDER BY id LIMIT \(Int64(max(0, limit)))", logger: logger)
        return try await profiles(rows)
    }

    private static func profiles(_ rows: PostgresRowSequence) async throws -> [Profile] {
        var profiles: [Profile] = []
        for try await (id, accountId, displayName, reputation, userType, gold, silver, bronze, image, location, website) in rows.decode(
            (Int64, Int64, String, Int64, String, Int64, Int64, Int64, String?, String?, String?).self) {
            profiles.append(Profile(id: id, accountId: accountId, displayName: displayName, reputation: reputation, userType: userType,
                                    badgeCounts: BadgeCounts(gold: gold, silver: silver, bronze: bronze),
                                    profileImage: image, location: location, websiteUrl: website))
        }
        return profiles
    }

    private static func fill(_ row: inout PostgresCopyRow, _ profile: Profile) {
        row.append(profile.id)
        row.append(profile.accountId)
        row.append(profile.displayName)
        row.append(profile.reputation)
        row.append(profile.userType)
        row.append(profile.badgeCounts.gold)
        row.append(profile.badgeCounts.silver)
        row.append(profile.badgeCounts.bronze)
        row.append(profile.profileImage)
        row.append(profile.location)
        row.append(profile.websiteUrl)
    }
}
