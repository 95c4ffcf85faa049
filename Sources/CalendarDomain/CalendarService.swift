import SwitchboardCore

/// The calendar: JSCalendar events, stored and fetched. The agenda's rules (occurrences, days,
/// zones) live above it in ``AgendaBuilder``, and edits in ``EventEditing``: an implementation only
/// stores, finds and logs.
public protocol CalendarService: Sendable {
    /// The events that may show on a day of `days` in any zone (``EventSpan``), with the state, read together.
    func events(touching days: ClosedRange<CalendarDate>) async throws -> EventSnapshot
    /// Every event, in id order, with the state.
    func allEvents() async throws -> EventSnapshot
    func event(id: String) async throws -> CalendarEvent?
    /// Stores `events`: a new id is created; an existing one is replaced when `replacing`, else kept
    /// as it is (so a retried create stores nothing twice). Changes are logged, the state read in the write.
    func put(_ events: [CalendarEvent], replacing: Bool) async throws -> Committed<[PutOutcome]>
    /// Runs `change` on the stored event `id` inside the write and stores what it returns (see
    /// ``EventChange``); throws ``ServiceError/notFound(kind:id:)`` when there is no such event.
    func edit(id: String, _ change: @escaping @Sendable (CalendarEvent) throws -> EventChange) async throws -> Committed<EventChange>
    /// The calendar's change-tracking state.
    func state() async throws -> String
    /// Event ids created, updated or destroyed since `sinceState`, at most `limit`.
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet
}

/// Events read together with the state they belong to.
public struct EventSnapshot: Sendable {
    public var events: [CalendarEvent]
    public var state: String

    public init(events: [CalendarEvent], state: String) {
        self.events = events
        self.state = state
    }
}

/// What storing one event did.
public enum PutOutcome: String, Sendable, Equatable, Codable {
    case created, updated, unchanged
}

/// The change-tracking domain name of the calendar.
public let calendarDomain = "calendar"
