/// A calendar event in the shape of JSCalendar (RFC 8984), the subset switchboard takes:
///
/// - `id` (JSCalendar's `uid`), `title`, `description`;
/// - `start` (a ``LocalDateTime``) with `timeZone` (an IANA name; `null` for a floating event, which
///   happens at that wall time wherever the viewer is), and `duration`;
/// - `showWithoutTime`: an all-day event. Its `start` is midnight of its date and its duration whole
///   days, and it is a *date*: it shows on that date in every zone (its `timeZone` is always null);
/// - `locations` and `participants`, maps of id → object (``Location``, ``Participant``);
/// - `recurrenceRules` (``RecurrenceRule``) and `recurrenceOverrides`, a map from the `start` of an
///   occurrence to either `{"excluded": true}` or the members that differ for it (``EventOverride``).
///
/// `@type` is taken where RFC 8984 has it (``JSCalendarType``) and not written. Not taken: `excludedRecurrenceRules`, `recurrenceId` on an event,
/// `relatedTo`, `alerts`, `virtualLocations`, `localizations`, `status`, `priority`, `privacy`,
/// `color`, `keywords`, and patches deeper than one member.
public struct CalendarEvent: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    public var description: String?
    public var start: LocalDateTime
    public var timeZone: String?
    public var duration: EventDuration
    public var showWithoutTime: Bool
    public var locations: [String: Location]?
    public var participants: [String: Participant]?
    public var recurrenceRules: [RecurrenceRule]?
    public var recurrenceOverrides: [String: EventOverride]?

    public init(id: String, title: String, description: String? = nil, start: LocalDateTime, timeZone: String?,
                duration: EventDuration, showWithoutTime: Bool = false, locations: [String: Location]? = nil,
                participants: [String: Participant]? = nil, recurrenceRules: [RecurrenceRule]? = nil,
                recurrenceOverrides: [String: EventOverride]? = nil) {
        self.id = id
        self.title = title
        self.description = description
        self.start = start
        self.timeZone = timeZone
        self.duration = duration
        self.showWithoutTime = showWithoutTime
        self.locations = locations
        self.participants = participants
        self.recurrenceRules = recurrenceRules
        self.recurrenceOverrides = recurrenceOverrides
    }

    /// True when it has occurrences beside its start: rules, or overrides (which add the occurrences
    /// their keys name, RFC 8984 §4.3.5, also to an event without rules: RDATE in iCalendar).
    public var isRecurring: Bool { !(recurrenceRules ?? []).isEmpty || !(recurrenceOverrides ?? [:]).isEmpty }
}

/// Where an event happens: JSCalendar's `Location`, its name only.
public struct Location: Sendable, Equatable, Codable {
    public var name: String

    public init(name: String) { self.name = name }

    public init(from decoder: any Decoder) throws {
        try JSCalendarType.check(decoder, is: "Location")
        name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
    }
}

/// Someone taking part: JSCalendar's `Participant` — name, email, and roles (`attendee`, `owner`,
/// `chair`, `optional`, `informational`, `contact`, as a set `{"attendee": true}`; in iCalendar
/// ORGANIZER and ROLE, see ``ICalendarParticipants``).
public struct Participant: Sendable, Equatable, Codable {
    public var name: String?
    public var email: String?
    public var roles: [String: Bool]?

    public init(name: String? = nil, email: String? = nil, roles: [String: Bool]? = nil) {
        self.name = name
        self.email = email
        self.roles = roles
    }

    public init(from decoder: any Decoder) throws {
        try JSCalendarType.check(decoder, is: "Participant")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        roles = try container.decodeIfPresent([String: Bool].self, forKey: .roles)
    }
}

/// What is different about one occurrence of a recurring event: excluded, or any of these members
/// replaced (JSCalendar's `PatchObject`, one level deep).
public struct EventOverride: Sendable, Equatable, Codable {
    public var excluded: Bool?
    public var title: String?
    public var description: String?
    public var start: LocalDateTime?
    public var duration: EventDuration?
    public var locations: [String: Location]?
    public var participants: [String: Participant]?

    public init(excluded: Bool? = nil, title: String? = nil, description: String? = nil, start: LocalDateTime? = nil,
                duration: EventDuration? = nil, locations: [String: Location]? = nil, participants: [String: Participant]? = nil) {
        self.excluded = excluded
        self.title = title
        self.description = description
        self.start = start
        self.duration = duration
        self.locations = locations
        self.participants = participants
    }

    public static let exclusion = EventOverride(excluded: true)

    public var isExclusion: Bool { excluded == true }
}
