import Synchronization
import SwitchboardCore

/// The calendar held in memory: events by id with their spans (``EventTable``), changes in an in-memory log.
public final class InMemoryCalendarService: CalendarService {
    private struct State {
        var events = EventTable()
        var log: InMemoryChangeLog

        mutating func apply(_ writes: EventWrites) {
            for event in writes.saved { events.put(event) }
            for id in writes.deleted { events.remove(id: id) }
            for (id, kind) in writes.records { log.record(itemID: id, kind: kind) }
        }
    }

    private let state: Mutex<State>
    private let signal: ChangeSignal

    /// - Parameters:
    ///   - events: the starting events (not change-logged), e.g. ``DemoCalendar/events(around:)``.
    ///   - signal: posted after every write.
    public init(events: [CalendarEvent] = [], signal: ChangeSignal = ChangeSignal(),
                retainedChanges: Int = ChangeTracking.retainedRecords) {
        var stored = EventTable()
        for event in events { stored.put(event) }
        state = Mutex(State(events: stored, log: InMemoryChangeLog(retained: retainedChanges,
                                                                   interval: min(ChangeTracking.pruneInterval, retainedChanges))))
        self.signal = signal
    }

    public func events(touching days: ClosedRange<CalendarDate>) async throws -> EventSnapshot {
        state.withLock { state in
            EventSnapshot(events: state.events.events(touching: days) { _ in nil }, state: state.log.state(domain: calendarDomain))
        }
    }

    public func allEvents() async throws -> EventSnapshot {
        state.withLock { state in
            EventSnapshot(events: state.events.all, state: state.log.state(domain: calendarDomain))
        }
    }

    public func event(id: String) async throws -> CalendarEvent? {
        state.withLock { $0.events[id] }
    }

    public func put(_ events: [CalendarEvent], replacing: Bool) async throws -> Committed<[PutOutcome]> {
        let committed = state.withLock { state in
            let (writes, outcomes) = EventWrites.put(events, replacing: replacing) { state.events[$0] }
            state.apply(writes)
            return Committed(outcomes, state: state.log.state(domain: calendarDomain))
        }
        signal.post()
        return committed
    }

    public func edit(id: String, _ change: @escaping @Sendable (CalendarEvent) throws -> EventChange) async throws -> Committed<EventChange> {
        let committed = try state.withLock { state in
            guard let stored = state.events[id] else { throw ServiceError.notFound(kind: "event", id: id) }
            let result = try change(stored)
            state.apply(EventWrites.edit(id: id, result))
            return Committed(result, state: state.log.state(domain: calendarDomain))
        }
        signal.post()
        return committed
    }

    public func state() async throws -> String {
        state.withLock { $0.log.state(domain: calendarDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try state.withLock { state throws(ServiceError) in
            try state.log.changes(domain: calendarDomain, since: sinceState, limit: limit)
        }
    }
}
