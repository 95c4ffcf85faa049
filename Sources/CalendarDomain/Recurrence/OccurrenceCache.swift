import Synchronization

/// The occurrence starts of each rule, computed once and kept for later requests.
///
/// Creating a libical iterator opens an ICU calendar: in a profile of `calendar.agenda` that was half
/// of all the time (`ucal_open` under `icalrecur_iterator_new`), iterating itself a few percent. So
/// each (rule, first start) is iterated once, from its start up to a horizon a year past the latest
/// window asked, and windows are then found by bisection. An edited rule or start is a new key; the
/// cache is dropped whole when it holds ``maximumRules``.
final class OccurrenceCache: Sendable {
    static let shared = OccurrenceCache()

    /// Rules kept before the cache starts again.
    static let maximumRules = 2_048

    private struct Key: Hashable {
        var rule: String
        var start: LocalDateTime
    }

    private struct Entry {
        var starts: [LocalDateTime]
        /// Occurrences up to here are all in `starts`.
        var horizon: LocalDateTime
        /// True when the rule ends before `horizon`: no later occurrence exists.
        var complete: Bool
    }

    private let entries = Mutex([Key: Entry]())

    /// The starts of the rule `rruleText` (first occurrence `start`) inside `window`, in order; `nil` when the rule
    /// has too many occurrences before the window to keep (the caller iterates the window itself).
    func starts(rruleText: String, from start: LocalDateTime,
                in window: ClosedRange<LocalDateTime>) -> ArraySlice<LocalDateTime>? {
        let key = Key(rule: rruleText, start: start)
        var entry = entries.withLock { $0[key] }
        if entry.map({ !$0.complete && $0.horizon < window.upperBound }) ?? true {
            let horizon = max(window.upperBound.adding(seconds: 366 * 86_400), entry?.horizon ?? window.upperBound)
            var starts: [LocalDateTime] = []
            var ended = true
            RecurrenceExpansion.iterate(rruleText, from: start, skippingTo: nil, through: horizon) { local in
                starts.append(local)
                return true
            } exhausted: { ended = $0 }
            guard ended || starts.count < RecurrenceExpansion.maximumSteps else { return nil }
            let computed = Entry(starts: starts, horizon: horizon, complete: ended)
            entry = computed
            entries.withLock { entries in
                if entries.count >= Self.maximumRules { entries.removeAll(keepingCapacity: true) }
                entries[key] = computed
            }
        }
        guard let entry else { return nil }
        let starts = entry.starts
        return starts[Self.firstIndex(in: starts, notBefore: window.lowerBound)..<Self.firstIndex(in: starts, after: window.upperBound)]
    }

    private static func firstIndex(in starts: [LocalDateTime], notBefore bound: LocalDateTime) -> Int {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < bound { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func firstIndex(in starts: [LocalDateTime], after bound: LocalDateTime) -> Int {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= bound { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
