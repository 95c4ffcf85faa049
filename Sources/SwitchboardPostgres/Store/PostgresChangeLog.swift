import PostgresNIO
import SwitchboardCore

/// The change log on PostgreSQL: every write records its changes in the same transaction, and a state is
/// one position in the log (shared by all domains), as on SQLite (`ChangeLog`).
///
/// **Positions are commit-ordered.** A sequence is not: a transaction that took 9 may commit after one
/// that took 10, and a reader that saw 10 would skip 9 forever. Here the next position comes from the
/// single row of `change_log_head`, updated by the append: the row stays locked until the writer's
/// transaction ends, so the next writer's append waits for that commit (or rollback) and then reads
/// the head it left. Positions are therefore handed out in commit order, without gaps, and a reader
/// that sees position N also sees every position below it. A rolled-back append gives its position to
/// the next writer.
///
/// - Important: append changes as the *last* statements of a transaction: the head stays locked until
///   the commit, so every other writer of every domain waits meanwhile.
///
/// Each append also `NOTIFY`s its domain's channel (``channel(for:)``), delivered at commit: a wake-up
/// for other hosts' subscriptions (``PostgresChangeListener``); the log stays the truth.
public enum PostgresChangeLog {
    /// The change log's schema, domain `changelog`.
    public static let migrations = PostgresMigrations(domain: "changelog", [
        PostgresMigration("change-log-v1", statements: [
            """
            CREATE TABLE change_log (
                sequence BIGINT PRIMARY KEY,
                domain TEXT NOT NULL,
                item_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'destroyed'))
            )
            """,
            "CREATE INDEX change_log_by_domain ON change_log(domain, sequence)",
            // The newest position handed out, and the oldest one changes can still be computed from.
            """
            CREATE TABLE change_log_head (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                sequence BIGINT NOT NULL,
                floor BIGINT NOT NULL
            )
            """,
            "INSERT INTO change_log_head(id, sequence, floor) VALUES (1, 0, 0)",
        ]),
    ])

    /// The log's newest position as a scalar SQL expression (NULL when the head row is missing), for a
    /// domain's query that reads it in the same snapshot as its rows:
    /// `SELECT \(unescaped: PostgresChangeLog.latestPosition), … FROM (SELECT 1) one LEFT JOIN LATERAL (…) ON true`.
    public static let latestPosition = "(SELECT sequence FROM change_log_head WHERE id = 1)"

    /// The `NOTIFY` channel of a domain (`mail` for the scope `mail/ACCOUNT`).
    public static func channel(for domain: String) -> String {
        "switchboard." + domain.prefix { $0 != "/" }
    }

    /// Records that `itemID` of `domain` was created, updated or destroyed, in the transaction open on
    /// `connection`, and notifies the domain's channel at commit. `domain` may be a scope (`mail/ACCOUNT`).
    ///
    /// - Returns: the record's position.
    @discardableResult
    public static func record(_ connection: PostgresConnection, domain: String, itemID: String, kind: ChangeRecord.Kind, logger: Logger) async throws -> Int64 {
        try await record(connection, [PostgresChange(domain: domain, itemID: itemID, kind: kind)], logger: logger) ?? 0
    }

    /// Records `changes`, in order, with one statement: consecutive positions taken from the head at
    /// once, and one `NOTIFY` per channel they touch (delivered at commit).
    ///
    /// Whenever the positions pass a multiple of ``ChangeTracking/pruneInterval`` the log is pruned to the
    /// newest ``ChangeTracking/retainedRecords``, in the same transaction.
    ///
    /// - Returns: the last record's position, or `nil` when `changes` is empty (nothing is written).
    @discardableResult
    public static func record(_ connection: PostgresConnection, _ changes: [PostgresChange], logger: Logger) async throws -> Int64? {
        guard !changes.isEmpty else { return nil }
        let count = Int64(changes.count)
        let domains = changes.map(\.domain), items = changes.map(\.itemID), kinds = changes.map(\.kind.rawValue)
        let channels = Array(Set(domains.map(channel(for:)))).sorted()
        let rows = try await connection.query("""
            WITH next AS (UPDATE change_log_head SET sequence = sequence + \(count) WHERE id = 1 RETURNING sequence),
                 added AS (INSERT INTO change_log(sequence, domain, item_id, kind)
                           SELECT next.sequence - \(count) + c.position, c.domain, c.item_id, c.kind
                           FROM next, unnest(\(domains)::text[], \(items)::text[], \(kinds)::text[])
                                WITH ORDINALITY AS c(domain, item_id, kind, position)
                           RETURNING sequence),
                 notified AS (SELECT pg_notify(channel, '') FROM unnest(\(channels)::text[]) AS channel)
            SELECT (SELECT max(sequence) FROM added), (SELECT count(*) FROM notified)
            """, logger: logger)
        var last: Int64?
        for try await (sequence, _) in rows.decode((Int64?, Int64).self) { last = sequence }
        guard let last else { throw PostgresChangeLogError.missingHead }
        let interval = Int64(ChangeTracking.pruneInterval)
        if last / interval > (last - count) / interval {
            try await prune(connection, keeping: ChangeTracking.retainedRecords, logger: logger)
        }
        return last
    }

    /// Takes the log's head for the open transaction now, ahead of its records, and returns the position
    /// its next record will get. For a write whose own rows must be numbered in commit order (chat's
    /// message positions): from here to its commit every other writer waits, as after a record.
    public static func reserve(_ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        for try await sequence in try await connection.query("SELECT sequence FROM change_log_head WHERE id = 1 FOR UPDATE", logger: logger)
            .decode(Int64.self) {
            return sequence + 1
        }
        throw PostgresChangeLogError.missingHead
    }

    /// Drops all but the newest `keeping` records and remembers where the log now starts.
    public static func prune(_ connection: PostgresConnection, keeping: Int, logger: Logger) async throws {
        let (latest, floor) = try await head(connection, logger: logger)
        let newFloor = latest - Int64(keeping)
        guard newFloor > floor else { return }
        try await connection.query("DELETE FROM change_log WHERE sequence <= \(newFloor)", logger: logger)
        try await connection.query("UPDATE change_log_head SET floor = \(newFloor) WHERE id = 1", logger: logger)
    }

    /// The newest position handed out and the oldest one changes can be computed from.
    static func head(_ connection: PostgresConnection, logger: Logger) async throws -> (latest: Int64, floor: Int64) {
        for try await row in try await connection.query("SELECT sequence, floor FROM change_log_head WHERE id = 1", logger: logger)
            .decode((Int64, Int64).self) {
            return row
        }
        throw PostgresChangeLogError.missingHead
    }

    /// The current state string of `domain`.
    public static func state(_ connection: PostgresConnection, domain: String, logger: Logger) async throws -> String {
        ChangeTracking.state(domain: domain, sequence: try await head(connection, logger: logger).latest)
    }

    /// The records after `position` (of `scope` only, when given), in log order, at most `limit`, and
    /// the newest position, read in one snapshot.
    public static func records(_ connection: PostgresConnection, after position: Int64, scope: String? = nil, limit: Int, logger: Logger) async throws -> (records: [ChangeRecord], latest: Int64, floor: Int64) {
        let rows = try await connection.query("""
            SELECT h.sequence, h.floor, c.sequence, c.item_id, c.kind
            FROM change_log_head h
            LEFT JOIN LATERAL (
                SELECT sequence, item_id, kind FROM change_log
                WHERE sequence > \(position) AND (\(scope)::text IS NULL OR domain = \(scope))
                ORDER BY sequence LIMIT \(Int64(max(0, limit)))
            ) c ON true
            WHERE h.id = 1
            ORDER BY c.sequence
            """, logger: logger)
        var records: [ChangeRecord] = []
        var latest: Int64?
        var floor: Int64 = 0
        for try await (head, headFloor, sequence, itemID, kind) in rows.decode((Int64, Int64, Int64?, String?, String?).self) {
            latest = head
            floor = headFloor
            if let sequence, let itemID, let kind {
                records.append(ChangeRecord(sequence: sequence, itemID: itemID, kind: ChangeRecord.Kind(rawValue: kind) ?? .updated))
            }
        }
        guard let latest else { throw PostgresChangeLogError.missingHead }
        return (records, latest, floor)
    }

    /// The changes of `scope` (by default all of `domain`) since `sinceState`, at most `limit` items,
    /// folded by the rules the SQLite log uses (``ChangeTracking``).
    public static func changes(_ connection: PostgresConnection, domain: String, scope: String? = nil, since sinceState: String, limit: Int, logger: Logger) async throws -> ChangeSet {
        // The state's position first (its form), then, once the log is read, whether it lies within it.
        let since = try ChangeTracking.sequence(of: sinceState, domain: domain, oldest: .min, latest: .max)
        let window = limit * 4
        let read = try await records(connection, after: since, scope: scope ?? domain, limit: window + 1, logger: logger)
        _ = try ChangeTracking.sequence(of: sinceState, domain: domain, oldest: read.floor, latest: read.latest)
        let truncated = read.records.count > window
        var set = ChangeTracking.fold(Array(read.records.prefix(window)), domain: domain, since: since, limit: limit)
        if truncated {
            set.hasMoreChanges = true
        } else if !set.hasMoreChanges {
            set.newState = ChangeTracking.state(domain: domain, sequence: read.latest)
        }
        return set
    }
}

/// One change for ``PostgresChangeLog/record(_:_:logger:)``.
public struct PostgresChange: Sendable, Equatable {
    /// The domain, or a scope of one (`mail/ACCOUNT`).
    public var domain: String
    public var itemID: String
    public var kind: ChangeRecord.Kind

    public init(domain: String, itemID: String, kind: ChangeRecord.Kind) {
        self.domain = domain
        self.itemID = itemID
        self.kind = kind
    }
}

/// The change log's bookkeeping row is missing: the schema was not migrated, or was altered by hand.
public enum PostgresChangeLogError: Error, Sendable, CustomStringConvertible {
    case missingHead

    public var description: String { "the change log has no head row (change_log_head): the database was not migrated by switchboard" }
}
