import Jansson

/// One event as the SQL backends store it (SQLite's ``EventRows``, PostgreSQL's ``PostgresEventRows``):
/// its JSCalendar JSON beside the span of days it can show on (``EventSpan``), and whether that span
/// is long.
///
/// A range of events by SQL: `WHERE NOT long_span AND first_day BETWEEN from - 31 AND to AND last_day >= from`,
/// and the long ones by `long_span AND first_day <= to AND (last_day IS NULL OR last_day >= from)`
/// (``EventSpan/touches(_:)``).
struct EventRow {
    /// Events spanning more days than this (or without end) are marked `long_span`, so a range
    /// query by SQL can read the short ones by an index range on `first_day` reaching only this far back.
    static let shortSpanDays: Int64 = 31

    var id: String
    var span: EventSpan
    var longSpan: Bool
    var body: String

    init(_ event: CalendarEvent) throws {
        let span = EventSpan(event)
        id = event.id
        self.span = span
        longSpan = span.lastDay.map { $0 - span.firstDay > Self.shortSpanDays } ?? true
        body = try Self.encode(event)
    }

    /// The lowest `first_day` of a short event that can touch a range starting on day `from`.
    static func shortSpanFloor(from: Int64) -> Int64 {
        from.subtractingReportingOverflow(shortSpanDays).overflow ? .min : from - shortSpanDays
    }

    static func encode(_ event: CalendarEvent) throws -> String {
        let value = try JanssonEncoder().encode(event)
        return withExtendedLifetime(value) { JSONWriter.string(of: value.view) }
    }

    /// The event a stored body holds, read directly (``StoredEvent``, no `Decoder`); one that does not
    /// decode (a damaged row) throws, it never traps.
    static func decode(_ body: String) throws -> CalendarEvent {
        try StoredEvent.decode(body)
    }
}
