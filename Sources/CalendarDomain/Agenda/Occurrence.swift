/// One occurrence of an event: its start on the event's wall clock and its length, with the override
/// for it (when there is one) applied; what it shows is read from the override and the event
/// (``EntryDetails``) only when an agenda writes it.
struct Occurrence: Sendable {
    var recurrenceId: LocalDateTime?
    var start: LocalDateTime
    var duration: EventDuration
    /// The override for this occurrence, when it has one.
    var patch: EventOverride?
    /// True when an override replaces the title, description, duration, locations or participants.
    var changesDetails: Bool

    /// The occurrence starting at `key` of `event`, with `patch` applied.
    init(of event: borrowing CalendarEvent, at key: LocalDateTime, patch: EventOverride?) {
        recurrenceId = event.isRecurring ? key : nil
        start = patch?.start ?? key
        duration = patch?.duration ?? event.duration
        self.patch = patch
        changesDetails = patch.map { $0.title != nil || $0.description != nil || $0.duration != nil || $0.locations != nil
            || $0.participants != nil } ?? false
    }

    /// The occurrences of `event` whose original start lies in `window` (wall time of the event's
    /// zone), and those an override moves or adds into it; excluded ones left out. In order of start
    /// (then of original start).
    ///
    /// Rules yield at most `limit` starts in all; when they would yield more, `cut` is set to the wall
    /// time up to which the answer is complete (the earliest of the rules' cuts); rule starts after it
    /// are left out.
    static func all(of event: CalendarEvent, in window: ClosedRange<LocalDateTime>, limit: Int = RecurrenceExpansion.maximumSteps,
                    cut: inout LocalDateTime?) -> [Occurrence] {
        guard event.isRecurring else {
            return window.contains(event.start) ? [Occurrence(of: event, at: event.start, patch: nil)] : []
        }
        let overrides = EventOverrides(event.recurrenceOverrides)
        var keys: [LocalDateTime] = []
        if window.contains(event.start) { keys.append(event.start) }
        var complete = window.upperBound
        for rule in event.recurrenceRules ?? [] {
            let expansion = RecurrenceExpansion.starts(of: rule, from: event.start, in: window, limit: max(limit - keys.count, 0)) {
                keys.append($0)
                return true
            }
            if case .cut(let after) = expansion { complete = min(complete, after) }
        }
        if complete < window.upperBound {
            cut = min(cut ?? complete, complete)
            keys.removeAll { $0 > complete }
        }
        // Each rule's starts come in order: one rule (the common case) leaves them sorted but for the
        // event's own start, which is usually its first.
        keys.sort()
        var occurrences: [Occurrence] = []
        occurrences.reserveCapacity(keys.count)
        var moved = false
        var previous: LocalDateTime?
        for key in keys where key != previous {
            previous = key
            let patch = overrides[key]
            if patch?.isExclusion != true {
                occurrences.append(Occurrence(of: event, at: key, patch: patch))
                moved = moved || patch?.start != nil
            }
        }
        // Overrides of occurrences outside the window that move into it, and added occurrences (RFC 8984 §4.3.5).
        for (key, patch) in overrides.byKey where !patch.isExclusion && window.contains(patch.start ?? key) {
            if Self.find(key, in: keys) == nil {
                occurrences.append(Occurrence(of: event, at: key, patch: patch))
                moved = true
            }
        }
        if moved {
            occurrences.sort { $0.start != $1.start ? $0.start < $1.start : ($0.recurrenceId ?? $0.start) < ($1.recurrenceId ?? $1.start) }
        }
        return occurrences
    }

    /// The index of `key` in the sorted `keys`, else `nil`.
    private static func find(_ key: LocalDateTime, in keys: [LocalDateTime]) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
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
