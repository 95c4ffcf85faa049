/// What an edit does to the stored events: the event as it is now (`nil`: deleted) and, when one
/// occurrence onwards became an event of its own ("thisAndFollowing"), that new event.
public struct EventChange: Sendable, Equatable {
    public var updated: CalendarEvent?
    public var created: CalendarEvent?

    public init(updated: CalendarEvent?, created: CalendarEvent? = nil) {
        self.updated = updated
        self.created = created
    }
}

/// Which occurrences of a recurring event an update or delete applies to.
public enum EditScope: String, Sendable, Codable, CaseIterable {
    /// The whole event (every occurrence).
    case all
    /// One occurrence, recorded as a recurrence override.
    case this
    /// One occurrence and every later one: the event is split there.
    case thisAndFollowing
}
