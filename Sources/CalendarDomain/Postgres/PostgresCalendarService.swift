import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// The calendar on PostgreSQL: the table of SQLite's service (``EventRow``: JSCalendar JSON beside the
/// span of days each event can show on), the rules every backend shares (``EventWrites``), and the
/// commit-ordered change log (``PostgresChangeLog``). A range is read by SQL on the spans, together
/// with the state in one statement; the events' JSON is decoded once per version (``DecodedBodies``).
/// Writes take the calendar's advisory lock first, so they serialise as on SQLite.
public final class PostgresCalendarService: CalendarService {
    public let store: PostgresStore
    private let signal: ChangeSignal
    private let decoded = DecodedBodies()
    private var logger: Logger { store.logger }

    /// Schema only, domain `calendar`.
    public static let migrations = PostgresEventRows.migrations

    public init(store: PostgresStore, signal: ChangeSignal = ChangeSignal()) {
        self.store = store
        self.signal = signal
    }

    /// Writes the demo events (not change-logged: they are the starting state) in the caller's
    /// transaction, in multi-row batches, reporting the number written so far.
    public static func seed(_ connection: PostgresConnection, events: [CalendarEvent], logger: Logger,
                            progress: (Int) -> Void = { _ in }) async throws {
        try await PostgresEventRows.save(connection, events, logger: logger, progress: progress)
        progress(events.count)
    }

    public func events(touching days: ClosedRange<CalendarDate>) async throws -> EventSnapshot {
        let read = try await store.read { [logger] in try await PostgresEventRows.rows($0, where: .touching(days), logger: logger) }
        // In the order SQLite's service hands out a range (``EventTable``: the ids' byte order).
        let events = try decoded.events(read.rows).sorted { ExactID($0.id) < ExactID($1.id) }
        return EventSnapshot(events: events, state: ChangeTracking.state(domain: calendarDomain, sequence: read.latest))
    }

    public func allEvents() async throws -> EventSnapshot {
        let read = try await store.read { [logger] in try await PostgresEventRows.rows($0, where: .all, logger: logger) }
        return EventSnapshot(events: try decoded.events(read.rows), state: ChangeTracking.state(domain: calendarDomain, sequence: read.latest))
    }

    public func event(id: String) async throws -> CalendarEvent? {
        try await store.read { [logger] in try await PostgresEventRows.event($0, id: id, logger: logger) }
    }

    public func put(_ events: [CalendarEvent], replacing: Bool) async throws -> Committed<[PutOutcome]> {
        let committed = try await store.write { [logger] connection in
            try await PostgresEventRows.lockWriters(connection, logger: logger)
            let stored = try await PostgresEventRows.events(connection, ids: events.map(\.id), logger: logger)
            let (writes, outcomes) = EventWrites.put(events, replacing: replacing) { stored[ExactID($0)] }
            try await PostgresEventRows.apply(connection, writes, logger: logger)
            return Committed(outcomes, state: try await PostgresChangeLog.state(connection, domain: calendarDomain, logger: logger))
        }
        signal.post()
        return committed
    }

    public func edit(id: String, _ change: @escaping @Sendable (CalendarEvent) throws -> EventChange) async throws -> Committed<EventChange> {
        // What `change` throws (a refused patch) is the caller's answer, not a storage failure: it is
        // carried out of the transaction (which then wrote nothing) and thrown as it is.
        let outcome = try await store.write { [logger] connection -> Result<Committed<EventChange>, any Error> in
            try await PostgresEventRows.lockWriters(connection, logger: logger)
            guard let event = try await PostgresEventRows.event(connection, id: id, logger: logger) else {
                throw ServiceError.notFound(kind: "event", id: id)
            }
            let result: EventChange
            do { result = try change(event) } catch { return .failure(error) }
            try await PostgresEventRows.apply(connection, EventWrites.edit(id: id, result), logger: logger)
            return .success(Committed(result, state: try await PostgresChangeLog.state(connection, domain: calendarDomain, logger: logger)))
        }
        let committed = try outcome.get()
        signal.post()
        return committed
    }

    public func state() async throws -> String {
        try await store.read { [logger] in try await PostgresChangeLog.state($0, domain: calendarDomain, logger: logger) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await store.read { [logger] in
            try await PostgresChangeLog.changes($0, domain: calendarDomain, since: sinceState, limit: limit, logger: logger)
        }
    }
}
