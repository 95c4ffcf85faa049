import GRDB
import SwitchboardCore
import SwitchboardStorage

/// The calendar in SQLite: one row per event, its JSCalendar JSON beside the span of days it can
/// show on (``EventSpan``). Ranges are found by the spans of the current state and read from the
/// events decoded so far (``DecodedEvents``): each event's JSON is decoded once, when a range first
/// needs it, and again only when it changes. Reads run on the calling thread's own connection
/// (``AppDatabase/read(_:)``).
public struct SQLiteCalendarService: CalendarService {
    public let database: AppDatabase
    private let signal: ChangeSignal
    private let decoded = DecodedEvents()

    /// The calendar's named migrations, for ``AppDatabase``.
    public static let migrations = EventRows.migrations

    public init(database: AppDatabase, signal: ChangeSignal = ChangeSignal()) {
        self.database = database
        self.signal = signal
    }

    public func events(touching days: ClosedRange<CalendarDate>) async throws -> EventSnapshot {
        try database.read { [decoded] db in
            let state = try ChangeLog.state(db, domain: calendarDomain)
            return EventSnapshot(events: try decoded.events(db, touching: days, at: state), state: state)
        }
    }

    public func allEvents() async throws -> EventSnapshot {
        try database.read { db in
            EventSnapshot(events: try EventRows.all(db), state: try ChangeLog.state(db, domain: calendarDomain))
        }
    }

    public func event(id: String) async throws -> CalendarEvent? {
        try database.read { db in try EventRows.event(db, id: id) }
    }

    public func put(_ events: [CalendarEvent], replacing: Bool) async throws -> Committed<[PutOutcome]> {
        let committed = try await database.write { db in
            let (writes, outcomes) = try EventWrites.put(events, replacing: replacing) { try EventRows.event(db, id: $0) }
            try EventRows.apply(db, writes)
            return Committed(outcomes, state: try ChangeLog.state(db, domain: calendarDomain))
        }
        signal.post()
        return committed
    }

    public func edit(id: String, _ change: @escaping @Sendable (CalendarEvent) throws -> EventChange) async throws -> Committed<EventChange> {
        let committed = try await database.write { db in
            guard let event = try EventRows.event(db, id: id) else { throw ServiceError.notFound(kind: "event", id: id) }
            let result = try change(event)
            try EventRows.apply(db, EventWrites.edit(id: id, result))
            return Committed(result, state: try ChangeLog.state(db, domain: calendarDomain))
        }
        signal.post()
        return committed
    }

    public func state() async throws -> String {
        try database.read { db in try ChangeLog.state(db, domain: calendarDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try database.read { db in try ChangeLog.changes(db, domain: calendarDomain, since: sinceState, limit: limit) }
    }

    /// Writes the demo events (not change-logged: they are the starting state).
    public static func seed(_ db: Database, events: [CalendarEvent], progress: (Int) -> Void = { _ in }) throws {
        for (index, event) in events.enumerated() {
            try EventRows.save(db, event)
            if (index + 1) % 1_000 == 0 { progress(index + 1) }
        }
        progress(events.count)
    }
}
