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
    public var showWithoutTime: Bool
    /// The occurrence's start, on the wall clock of `timeZone` (of the agenda's zone when floating).
    public var start: LocalDateTime
    public var duration: EventDuration
    /// The occurrence's start and end instants, in seconds since the epoch; `nil` for all-day events, which are dates.
    public var startInstant: Int64?
    public var endInstant: Int64?
    /// True when it began on an earlier day (it shows again here, continuing).
    public var continuing: Bool
    /// True when it goes on into the next day.
    public var endsAfterDay: Bool
    /// Title, description, zone, locations and participants: one object for all the occurrences of
    /// an event that no override changes (entries are copied and sorted; this keeps them small).
    let details: EntryDetails
    /// True when title, description, duration, locations and participants are the event's own (no
    /// override changes them), so the event's text can be written once and copied (``AgendaText``).
    var hasEventDetails = false

    public var title: String { details.title }
    public var description: String? { details.description }
    public var timeZone: String? { details.timeZone }
    public var locations: [String: Location]? { details.locations }
    public var participants: [String: Participant]? { details.participants }

    /// The start as a UTC instant (RFC 3339), as the entry's JSON has it; absent for all-day events.
    public var startsAt: String? { startInstant.map { Timestamp.format($0 * 1000) } }
    /// The end as a UTC instant (RFC 3339); absent for all-day events.
    public var endsAt: String? { endInstant.map { Timestamp.format($0 * 1000) } }

    enum CodingKeys: String, CodingKey {
        case id, recurrenceId, title, description, showWithoutTime, start, timeZone, duration, startsAt, endsAt, locations,
             participants, continuing, endsAfterDay
    }

    /// Members in the order ``AgendaText`` writes them: the occurrence's own, then its event's details.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(recurrenceId, forKey: .recurrenceId)
        try container.encode(start, forKey: .start)
        try container.encodeIfPresent(startsAt, forKey: .startsAt)
        try container.encodeIfPresent(endsAt, forKey: .endsAt)
        try container.encode(continuing, forKey: .continuing)
        try container.encode(endsAfterDay, forKey: .endsAfterDay)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(showWithoutTime, forKey: .showWithoutTime)
        try container.encodeIfPresent(timeZone, forKey: .timeZone)
        try container.encode(duration, forKey: .duration)
        try container.encodeIfPresent(locations, forKey: .locations)
        try container.encodeIfPresent(participants, forKey: .participants)
    }
}

/// What an agenda entry shows of its event (or of its override).
final class EntryDetails: Sendable, Equatable {
    let title: String
    let description: String?
    let timeZone: String?
    let locations: [String: Location]?
    let participants: [String: Participant]?

    init(_ occurrence: borrowing Occurrence, of event: borrowing CalendarEvent) {
        let patch = occurrence.patch
        title = patch?.title ?? event.title
        description = patch?.description ?? event.description
        timeZone = event.timeZone
        locations = patch?.locations ?? event.locations
        participants = patch?.participants ?? event.participants
    }

    static func == (a: EntryDetails, b: EntryDetails) -> Bool {
        a === b || (a.title == b.title && a.description == b.description && a.timeZone == b.timeZone && a.locations == b.locations
            && a.participants == b.participants)
    }
}
