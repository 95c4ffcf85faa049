import GRDB
import SwitchboardCore

/// The change log every domain writes to in the same transaction as the change itself, so no change
/// is ever missing from it. A state is one position in the log, shared by all domains and scopes.
public enum ChangeLog {
    static let migration = DatabaseMigration("change-log-v1") { db in
        try db.execute(sql: """
            CREATE TABLE change_log (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                domain TEXT NOT NULL,
                item_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'destroyed'))
            );
            CREATE INDEX change_log_by_domain ON change_log(domain, sequence);
            """)
    }

    static let floorMigration = DatabaseMigration("change-log-floor-v1") { db in
        try db.execute(sql: "CREATE TABLE change_log_floor (id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL)")
    }

    /// How many change records are kept; states older than that are answered `cannotCalculateChanges`.
    public static let retainedRecords = ChangeTracking.retainedRecords

    /// Drops all but the newest `keeping` records and remembers where the log now starts.
    public static func prune(_ db: Database, keeping: Int = retainedRecords) throws {
        let floor = try latestSequence(db) - Int64(keeping)
        guard floor > (try oldestSequence(db)) else { return }
        try db.execute(sql: "DELETE FROM change_log WHERE sequence <= ?", arguments: [floor])
        try db.execute(sql: "INSERT OR REPLACE INTO change_log_floor(id, sequence) VALUES (1, ?)", arguments: [floor])
    }

    /// The oldest state changes can still be computed from.
    static func oldestSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT sequence FROM change_log_floor WHERE id = 1")) ?? 0
    }

    /// Records that `itemID` of `domain` was created, updated or destroyed. `domain` may be narrower
    /// than the state's domain (mail records per account: `mail/ACCOUNT`), so changes can be
    /// reported per scope while the state string stays one position in the log.
    ///
    /// Every ``ChangeTracking/pruneInterval`` records the log is pruned to the newest
    /// ``retainedRecords``, in the same transaction: it never grows past their sum.
    ///
    /// - Returns: the record's position in the log.
    @discardableResult
    public static func record(_ db: Database, domain: String, itemID: String, kind: ChangeRecord.Kind) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO change_log(domain, item_id, kind) VALUES (?, ?, ?)")
            .execute(arguments: [domain, itemID, kind.rawValue])
        let sequence = db.lastInsertedRowID
        if sequence % Int64(ChangeTracking.pruneInterval) == 0 { try prune(db) }
        return sequence
    }

    /// The current state string of `domain`.
    public static func state(_ db: Database, domain: String) throws -> String {
        ChangeTracking.state(domain: domain, sequence: try latestSequence(db))
    }

    /// The changes of `scope` (by default all of `domain`) since `sinceState`, at most `limit` items.
    public static func changes(_ db: Database, domain: String, scope: String? = nil, since sinceState: String, limit: Int) throws -> ChangeSet {
        let latest = try latestSequence(db)
        let since = try ChangeTracking.sequence(of: sinceState, domain: domain, oldest: try oldestSequence(db), latest: latest)
        // Several records may fold into one item; read a bounded window and report the rest as more.
        let window = limit * 4
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT sequence, item_id, kind FROM change_log WHERE domain = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            arguments: [scope ?? domain, since, window + 1]
        )
        let truncated = rows.count > window
        let records = rows.prefix(window).map { row in
            ChangeRecord(sequence: row[0], itemID: row[1], kind: ChangeRecord.Kind(rawValue: row[2]) ?? .updated)
        }
        var set = ChangeTracking.fold(records, domain: domain, since: since, limit: limit)
        if truncated {
            set.hasMoreChanges = true
        } else if !set.hasMoreChanges {
            // Everything of this domain was read: the state moves to the log's end.
            set.newState = ChangeTracking.state(domain: domain, sequence: latest)
        }
        return set
    }

    /// The newest position in the whole log (0 when empty).
    static func latestSequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'")) ?? 0
    }
}
