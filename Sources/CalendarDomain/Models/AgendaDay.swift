import SwitchboardCore

/// One calendar day of an agenda, in the agenda's zone, with what happens on it.
public struct AgendaDay: Sendable, Equatable, Encodable {
    public var date: CalendarDate
    /// How long the day is in that zone: 1440 minutes, or 1380/1500 on a DST change (Lord Howe: 1410/1470).
    public var lengthMinutes: Int64
    /// All-day events first (by date, then title), then the rest by start, then title.
    public var events: [AgendaEntry]
}

/// One occurrence of an event as a day of the agenda shows it.
public struct AgendaEntry: Sendable, Equatable, Encodable {
    /// The event's id.
    public var id: String
    /// For an occurrence of a recurring event: its original start (the key of `recurrenceOverrides`).
    public var recurrenceId: LocalDateTime?
    public var title: String
    public var description: String?
    public var showWithoutTime: Bool
    /// The occurrence's start, on the wall clock of `timeZone` (of the agenda's zone when floating).
    public var start: LocalDateTime
    public var timeZone: String?
    public var duration: EventDuration
    /// The occurrence's start and end as UTC instants (RFC 3339); absent for all-day events, which are dates.
    public var startsAt: String?
    public var endsAt: String?
    public var locations: [String: Location]?
    public var participants: [String: Participant]?
    /// True when it began on an earlier day (it shows again here, continuing).
    public var continuing: Bool
    /// True when it goes on into the next day.
    public var endsAfterDay: Bool
    /// True when title, description, duration, locations and participants are the event's own (no
    /// override changes them), so the event's text can be written once and copied (``AgendaText``).
    var hasEventDetails = false

    enum CodingKeys: String, CodingKey {
        case id, recurrenceId, title, description, showWithoutTime, start, timeZone, duration, startsAt, endsAt, locations,
             participants, continuing, endsAfterDay
    }
}
