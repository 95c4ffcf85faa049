import GRDB
import Jansson
import SwitchboardCore
import SwitchboardStorage

/// The SQL of the calendar's table: events as JSCalendar JSON, with the span of days each can show on.
///
/// A range of events by SQL: `WHERE long_span = 0 AND first_day BETWEEN from - 31 AND to AND last_day >= from`,
/// and the long ones by `long_span = 1 AND first_day <= to AND (last_day IS NULL OR last_day >= from)`.
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
    ]

    /// Events spanning more days than this (or without end) are marked `long_span`, so a range
    /// query by SQL can read the short ones by an index range on `first_day` reaching only this far
    /// back. (The service itself reads ranges from ``DecodedEvents``.)
    static let shortSpanDays: Int64 = 31

    static func all(_ db: Database) throws -> [CalendarEvent] {
        try String.fetchAll(db.cachedStatement(sql: "SELECT body FROM calendar_event ORDER BY id")).map(decode)
    }

    /// Calls `visit` with each event's id and stored span, in id order.
    static func allSpans(_ db: Database, _ visit: (String, EventSpan) -> Void) throws {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT id, first_day, last_day FROM calendar_event ORDER BY id"))
        while let row = try rows.next() {
            visit(row[0], EventSpan(firstDay: row[1], lastDay: row[2]))
        }
    }

    /// The stored span of the event `id`, or `nil` when there is no such event.
    static func span(_ db: Database, id: String) throws -> EventSpan? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT first_day, last_day FROM calendar_event WHERE id = ?"), arguments: [id])
            .map { EventSpan(firstDay: $0[0], lastDay: $0[1]) }
    }

    static func event(_ db: Database, id: String) throws -> CalendarEvent? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT body FROM calendar_event WHERE id = ?"), arguments: [id]).map(decode)
    }

    static func save(_ db: Database, _ event: CalendarEvent) throws {
        let span = EventSpan(event)
        let long = span.lastDay.map { $0 - span.firstDay > shortSpanDays } ?? true
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO calendar_event(id, first_day, last_day, long_span, body) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [event.id, span.firstDay, span.lastDay, long ? 1 : 0, try encode(event)])
    }

    static func encode(_ event: CalendarEvent) throws -> String {
        let value = try JanssonEncoder().encode(event)
        return withExtendedLifetime(value) { JSONWriter.string(of: value.view) }
    }

    /// The event a stored body holds, read directly (``StoredEvent``, no `Decoder`); one that does not
    /// decode (a damaged file) throws, it never traps. Backend-neutral: the body text is all it needs.
    static func decode(_ body: String) throws -> CalendarEvent {
        try StoredEvent.decode(body)
    }
}
