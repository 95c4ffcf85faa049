import Synchronization

/// The occurrence starts of each rule near the windows asked for, kept for later requests.
///
/// Each (rule, first start) is kept over a span around the windows asked, and windows inside the span
/// are then found by bisection. The first window of a rule is iterated alone: a process that answers
/// one agenda (a fresh `switchboard call`) iterates no more than it shows. A later window the span
/// does not cover is iterated with a year either side (``marginSeconds``) and joined to the span when
/// they meet, up to ``maximumSpanSeconds``, so a host asked for many windows expands a rule rarely
/// (a `count` rule is counted from its start each time). ``RecurrenceExpansion/iterate(_:from:notBefore:through:maximumSteps:_:)`` starts near
/// the span, not at the rule's start. An edited rule or start is a new key.
///
/// - Important: The cache is bounded in bytes (``maximumBytes``): a span with more than
///   ``maximumEntryStarts`` starts is not kept (the caller iterates its window itself), and the cache
///   is dropped whole when a new entry would take it past its bound.
final class OccurrenceCache: Sendable {
    static let shared = OccurrenceCache()

    /// Bytes the kept starts may take, about (8 a start, plus each entry's key and bookkeeping).
    static let maximumBytes = 32 << 20
    /// Starts one entry may hold.
    static let maximumEntryStarts = 100_000
    /// Wall time kept either side of a window the span does not cover, once a rule has been asked for.
    static let marginSeconds: Int64 = 366 * 86_400
    /// The widest span one entry covers: windows lie within 1000 days of today (2001 days) plus the margins.
    static let maximumSpanSeconds: Int64 = (2_001 + 2 * 366 + 30) * 86_400

    private struct Key: Hashable {
        var rule: String
        var start: LocalDateTime
    }

    private struct Entry {
        /// Every occurrence in `lower...upper` is in `starts`; `lower` is the rule's start when the span begins there.
        var lower: LocalDateTime
        var upper: LocalDateTime
        var starts: [LocalDateTime]
        /// True when the rule has no occurrence after `upper`.
        var ended: Bool
        /// True when the span begins at the rule's start (no occurrence before `lower`).
        var fromStart: Bool
        var cost: Int

        func covers(_ window: ClosedRange<LocalDateTime>) -> Bool {
            (fromStart || lower <= window.lowerBound) && (ended || upper >= window.upperBound)
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        /// Occurrences iterated to fill entries, for tests.
        var iterated = 0
    }

    private let state = Mutex(State())

    /// Bytes the kept entries take, about.
    var bytes: Int { state.withLock { $0.bytes } }
    /// Occurrences iterated so far to fill the cache (a measure of its work, for tests).
    var iterated: Int { state.withLock { $0.iterated } }

    /// The starts of `rule` (first occurrence `start`) inside `window`, in order; `nil` when the span
    /// around the window holds too many to keep (the caller iterates the window itself).
    func starts(of rule: RecurrenceRule, from start: LocalDateTime, in window: ClosedRange<LocalDateTime>) -> ArraySlice<LocalDateTime>? {
        let key = Key(rule: rule.rruleText, start: start)
        let kept = state.withLock { $0.entries[key] }
        if let kept, kept.covers(window) { return Self.slice(kept.starts, window) }
        let margin = kept == nil ? 0 : Self.marginSeconds
        var lower = window.lowerBound.adding(seconds: -margin)
        var upper = window.upperBound.adding(seconds: margin)
        if let kept, min(upper, kept.upper).seconds >= max(lower, kept.lower).seconds - Self.marginSeconds,
           max(upper, kept.upper).seconds - min(lower, kept.lower).seconds <= Self.maximumSpanSeconds {
            lower = min(lower, kept.lower)
            upper = max(upper, kept.upper)
        }
        let fromStart = lower <= start
        var starts: [LocalDateTime] = []
        let outcome = RecurrenceExpansion.iterate(rule, from: start, notBefore: fromStart ? start : lower, through: upper,
                                                  maximumSteps: Self.maximumEntryStarts) { local in
            starts.append(local)
            return true
        }
        let cost = starts.count * MemoryLayout<LocalDateTime>.stride + key.rule.utf8.count + 128
        state.withLock { $0.iterated += starts.count }
        guard outcome != .stopped, cost <= Self.maximumBytes / 8 else { return nil }
        let entry = Entry(lower: fromStart ? start : lower, upper: upper, starts: starts, ended: outcome == .ended,
                          fromStart: fromStart, cost: cost)
        state.withLock { state in
            if let old = state.entries[key] { state.bytes -= old.cost }
            if state.bytes + cost > Self.maximumBytes {
                state.entries.removeAll()
                state.bytes = 0
            }
            state.entries[key] = entry
            state.bytes += cost
        }
        return Self.slice(entry.starts, window)
    }

    private static func slice(_ starts: [LocalDateTime], _ window: ClosedRange<LocalDateTime>) -> ArraySlice<LocalDateTime> {
        starts[firstIndex(in: starts) { $0 < window.lowerBound }..<firstIndex(in: starts) { $0 <= window.upperBound }]
    }

    /// The first index whose start fails `before` (which holds for a prefix of `starts`).
    private static func firstIndex(in starts: [LocalDateTime], where before: (LocalDateTime) -> Bool) -> Int {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if before(starts[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
