import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// The SQL of the calendar's table on PostgreSQL: the columns of SQLite's (``EventRow``), ids in byte
/// order (`COLLATE "C"`, as SQLite's `BINARY`), days as `BIGINT`.
///
/// Ids cannot hold NUL in PostgreSQL's text: none is ever stored (an event id is checked before it is),
/// so a look-up of such an id finds nothing without asking the server, as on SQLite.
enum PostgresEventRows {
    static let migrations = PostgresMigrations(domain: calendarDomain, [
        PostgresMigration("calendar-v1", statements: [
            """
            CREATE TABLE calendar_event (
                id TEXT COLLATE "C" PRIMARY KEY,
                first_day BIGINT NOT NULL,
                last_day BIGINT,
                long_span BOOLEAN NOT NULL,
                body TEXT NOT NULL
            )
            """,
            "CREATE INDEX calendar_event_by_span ON calendar_event(long_span, first_day)",
        ]),
    ])

    /// Rows per multi-row statement (5 parameters each, well below the protocol's 65,535).
    static let batchSize = 1_000

    /// The advisory lock every calendar write takes first, so writes of the calendar serialise as on
    /// SQLite: a write reads what the one before it committed (two creates of one id: one is `unchanged`).
    static let writeLockKey: Int64 = 0x5357_4341_4C45_0001

    static func lockWriters(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(writeLockKey))", logger: logger)
    }

    static func storable(_ id: String) -> Bool { !id.utf8.contains(0) }

    static func event(_ connection: PostgresConnection, id: String, logger: Logger) async throws -> CalendarEvent? {
        guard storable(id) else { return nil }
        for try await body in try await connection.query("SELECT body FROM calendar_event WHERE id = \(id)", logger: logger).decode(String.self) {
            return try EventRow.decode(body)
        }
        return nil
    }

    /// The stored events of `ids`, by id.
    static func events(_ connection: PostgresConnection, ids: [String], logger: Logger) async throws -> [ExactID: CalendarEvent] {
        let ids = Set(ids.filter(storable).map(ExactID.init)).map(\.id)
        guard !ids.isEmpty else { return [:] }
        var found: [ExactID: CalendarEvent] = [:]
        let rows = try await connection.query("SELECT id, body FROM calendar_event WHERE id = ANY(\(ids))", logger: logger)
        for try await (id, body) in rows.decode((String, String).self) { found[ExactID(id)] = try EventRow.decode(body) }
        return found
    }

    /// The change log's newest position and the rows (id, body) matching `condition`, read in one
    /// statement (one snapshot), in id order.
    static func rows(_ connection: PostgresConnection, where condition: RowCondition, logger: Logger) async throws -> (latest: Int64, rows: [(id: String, body: String)]) {
        let query: PostgresQuery = switch condition {
        case .all:
            """
            SELECT \(unescaped: PostgresChangeLog.latestPosition), e.id, e.body FROM (SELECT 1) one
            LEFT JOIN LATERAL (SELECT id, body FROM calendar_event) e ON true
            ORDER BY e.id
            """
        case .touching(let days):
            """
            SELECT \(unescaped: PostgresChangeLog.latestPosition), e.id, e.body FROM (SELECT 1) one
            LEFT JOIN LATERAL (
                SELECT id, body FROM calendar_event
                WHERE (NOT long_span AND first_day BETWEEN \(EventRow.shortSpanFloor(from: days.lowerBound.dayNumber)) AND \(days.upperBound.dayNumber)
                       AND last_day >= \(days.lowerBound.dayNumber))
                   OR (long_span AND first_day <= \(days.upperBound.dayNumber)
                       AND (last_day IS NULL OR last_day >= \(days.lowerBound.dayNumber)))
            ) e ON true
            ORDER BY e.id
            """
        }
        var latest: Int64?
        var rows: [(id: String, body: String)] = []
        for try await (sequence, id, body) in try await connection.query(query, logger: logger).decode((Int64?, String?, String?).self) {
            latest = sequence
            if let id, let body { rows.append((id, body)) }
        }
        guard let latest else { throw PostgresChangeLogError.missingHead }
        return (latest, rows)
    }

    /// Which rows ``rows(_:where:logger:)`` reads.
    enum RowCondition {
        case all
        /// The events that may show on a day of the range (``EventSpan/touches(_:)``).
        case touching(ClosedRange<CalendarDate>)
    }

    /// Stores the writes' rows (in batches), then appends their change records, last in the transaction.
    static func apply(_ connection: PostgresConnection, _ writes: EventWrites, logger: Logger) async throws {
        try await save(connection, writes.saved, logger: logger)
        let deleted = writes.deleted
        if !deleted.isEmpty { try await connection.query("DELETE FROM calendar_event WHERE id = ANY(\(deleted))", logger: logger) }
        try await PostgresChangeLog.record(
            connection, writes.records.map { PostgresChange(domain: calendarDomain, itemID: $0.0, kind: $0.1) }, logger: logger)
    }

    /// Inserts or replaces `events` (distinct ids), ``batchSize`` rows per statement.
    static func save(_ connection: PostgresConnection, _ events: [CalendarEvent], logger: Logger,
                     progress: (Int) -> Void = { _ in }) async throws {
        var start = 0
        while start < events.count {
            try Task.checkCancellation()
            let batch = events[start..<min(start + batchSize, events.count)]
            var bindings = PostgresBindings(capacity: batch.count * 5)
            var values: [String] = []
            values.reserveCapacity(batch.count)
            for event in batch {
                let row = try EventRow(event)
                let first = bindings.count + 1
                values.append("($\(first), $\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4))")
                bindings.append(row.id)
                bindings.append(row.span.firstDay)
                bindings.append(row.span.lastDay)
                bindings.append(row.longSpan)
                bindings.append(row.body)
            }
            try await connection.query(PostgresQuery(unsafeSQL: """
                INSERT INTO calendar_event(id, first_day, last_day, long_span, body) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (id) DO UPDATE SET first_day = excluded.first_day, last_day = excluded.last_day,
                    long_span = excluded.long_span, body = excluded.body
                """, binds: bindings), logger: logger)
            start += batch.count
            progress(start)
        }
    }
}
