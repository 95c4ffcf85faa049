import Foundation
import GRDB
import SwitchboardCore
import SwitchboardStorage

/// The SQL of the calendar's table on SQLite: events as JSCalendar JSON, with the span of days each
/// can show on (``EventRow``), kept in span order.
enum EventRows {
    static let migrations = [
        DatabaseMigration("calendar-v1") { db in
            try db.execute(sql: """
                CREATE TABLE calendar_event (
                    id TEXT PRIMARY KEY,
                    first_day INTEGER NOT NULL,
                    last_day INTEGER,
                    long_span INTEGER NOT NULL,
                    body TEXT NOT NULL
                );
                CREATE INDEX calendar_event_by_span ON calendar_event(long_span, first_day);
                """)
        },
        // The rows kept in span order (WITHOUT ROWID, keyed by the span), so the rows of a range lie on
        // pages together: a fresh process's 31-day agenda read its 201 rows from ~350 pages scattered by
        // id, and reads them from a few dozen now. Ids stay unique through their own index.
        DatabaseMigration("calendar-v2-rows-by-span") { db in
            try db.execute(sql: """
                CREATE TABLE calendar_event_by_span_order (
                    long_span INTEGER NOT NULL,
                    first_day INTEGER NOT NULL,
                    id TEXT NOT NULL,
                    last_day INTEGER,
                    body TEXT NOT NULL,
                    PRIMARY KEY (long_span, first_day, id)
                ) WITHOUT ROWID;
                INSERT INTO calendar_event_by_span_order(long_span, first_day, id, last_day, body)
                    SELECT long_span, first_day, id, last_day, body FROM calendar_event;
                DROP TABLE calendar_event;
                ALTER TABLE calendar_event_by_span_order RENAME TO calendar_event;
                CREATE UNIQUE INDEX calendar_event_by_id ON calendar_event(id);
                """)
        },
    ]

    static func all(_ db: Database) throws -> [CalendarEvent] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT body FROM calendar_event ORDER BY id"))
        var events: [CalendarEvent] = []
        while let row = try rows.next() { events.append(try body(of: row, at: 0, StoredEvent.decode(bytes:))) }
        return events
    }

    /// Calls `visit` with the id, stored span and JSON of each event that may show on a day of `days`
    /// (``EventRow``'s range by SQL, on the span index), in no particular order: sorting by id made
    /// SQLite copy every body through its sorter, and ``EventTable`` orders its ids itself.
    ///
    /// The JSON is SQLite's own bytes, valid during the call alone: no string is made of a body that
    /// is only read once (``StoredEvent/decode(bytes:)`` checks its UTF-8 itself).
    static func touching(_ db: Database, _ days: ClosedRange<CalendarDate>,
                         _ visit: (String, EventSpan, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let lower = days.lowerBound.dayNumber, upper = days.upperBound.dayNumber
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT id, first_day, last_day, body FROM calendar_event
            WHERE (long_span = 0 AND first_day BETWEEN ? AND ? AND last_day >= ?)
               OR (long_span = 1 AND first_day <= ? AND (last_day IS NULL OR last_day >= ?))
            """), arguments: [EventRow.shortSpanFloor(from: lower), upper, lower, upper, lower])
        while let row = try rows.next() {
            let id: String = row[0], span = EventSpan(firstDay: row[1], lastDay: row[2])
            try body(of: row, at: 3) { try visit(id, span, $0) }
        }
    }

    /// Calls `use` with the bytes of the body in column `index` of `row`, SQLite's own (valid during
    /// the call alone); every read of a body goes through here, so all take and refuse the same rows.
    private static func body<T>(of row: Row, at index: Int, _ use: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        try row.withUnsafeData(atIndex: index) { body in
            guard let body else {
                throw ServiceError.serviceFailure(debugId: DebugID.make(), cause: "stored calendar event: the body is NULL")
            }
            return try body.withUnsafeBytes { try use($0.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// The stored span of the event `id`, or `nil` when there is no such event.
    static func span(_ db: Database, id: String) throws -> EventSpan? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT first_day, last_day FROM calendar_event WHERE id = ?"), arguments: [id])
            .map { EventSpan(firstDay: $0[0], lastDay: $0[1]) }
    }

    static func event(_ db: Database, id: String) throws -> CalendarEvent? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT body FROM calendar_event WHERE id = ?"), arguments: [id]) else {
            return nil
        }
        return try body(of: row, at: 0, StoredEvent.decode(bytes:))
    }

    /// Stores the writes' rows, then appends their change records.
    static func apply(_ db: Database, _ writes: EventWrites) throws {
        for event in writes.saved { try save(db, event) }
        for id in writes.deleted { try db.cachedStatement(sql: "DELETE FROM calendar_event WHERE id = ?").execute(arguments: [id]) }
        for (id, kind) in writes.records { try ChangeLog.record(db, domain: calendarDomain, itemID: id, kind: kind) }
    }

    /// The ranges the service reads come from ``DecodedEvents``; the span columns serve a range by SQL.
    static func save(_ db: Database, _ event: CalendarEvent) throws {
        let row = try EventRow(event)
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO calendar_event(id, first_day, last_day, long_span, body) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [row.id, row.span.firstDay, row.span.lastDay, row.longSpan ? 1 : 0, row.body])
    }
}
