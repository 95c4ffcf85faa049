/// One occurrence of an event: its start on the event's wall clock and what it shows, with the
/// override for it applied.
struct Occurrence: Sendable {
    var recurrenceId: LocalDateTime?
    var start: LocalDateTime
    var duration: EventDuration
    var title: String
    var description: String?
    var locations: [String: Location]?
    var participants: [String: Participant]?
    /// True when an override replaces the title, description, duration, locations or participants.
    var changesDetails: Bool

    /// The occurrence starting at `key` of `event`, with `patch` applied.
    init(of event: CalendarEvent, at key: LocalDateTime, patch: EventOverride?) {
        recurrenceId = event.isRecurring ? key : nil
        start = patch?.start ?? key
        duration = patch?.duration ?? event.duration
        title = patch?.title ?? event.title
        description = patch?.description ?? event.description
        locations = patch?.locations ?? event.locations
        participants = patch?.participants ?? event.participants
        changesDetails = patch.map { $0.title != nil || $0.description != nil || $0.duration != nil || $0.locations != nil
            || $0.participants != nil } ?? false
    }

    /// The occurrences of `event` whose original start lies in `window` (wall time of the event's
    /// zone), and those an override moves or adds into it; excluded ones left out.
    static func all(of event: CalendarEvent, in window: ClosedRange<LocalDateTime>) -> [Occurrence] {
        guard event.isRecurring else {
            return window.contains(event.start) ? [Occurrence(of: event, at: event.start, patch: nil)] : []
        }
        let overrides = EventOverrides(event.recurrenceOverrides)
        var keys: Set<LocalDateTime> = window.contains(event.start) ? [event.start] : []
        for rule in event.recurrenceRules ?? [] {
            RecurrenceExpansion.starts(of: rule, from: event.start, in: window) { keys.insert($0); return true }
        }
        var occurrences: [Occurrence] = []
        occurrences.reserveCapacity(keys.count)
        for key in keys {
            let patch = overrides[key]
            if patch?.isExclusion != true { occurrences.append(Occurrence(of: event, at: key, patch: patch)) }
        }
        // Overrides of occurrences outside the window that move into it, and added occurrences (RFC 8984 §4.3.5).
        for (key, patch) in overrides.byKey where !keys.contains(key) && !patch.isExclusion {
            if window.contains(patch.start ?? key) { occurrences.append(Occurrence(of: event, at: key, patch: patch)) }
        }
        return occurrences
    }
}

/// An event's `recurrenceOverrides` with their keys parsed (keys that are not date-times are ignored;
/// validation refuses them on the way in).
struct EventOverrides {
    let byKey: [LocalDateTime: EventOverride]

    init(_ overrides: [String: EventOverride]?) {
        var byKey: [LocalDateTime: EventOverride] = [:]
        for (key, patch) in overrides ?? [:] {
            if let local = LocalDateTime(key) { byKey[local] = patch }
        }
        self.byKey = byKey
    }

    subscript(key: LocalDateTime) -> EventOverride? { byKey.isEmpty ? nil : byKey[key] }
}
