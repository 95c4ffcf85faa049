/// A log line for something a plugin may do again and again: the first time is logged at once, later
/// times at most once per ``interval``, as the count since the last line (a plugin cannot flood the log).
struct LogThrottle {
    /// The least time between two log lines: a minute (nanoseconds).
    static let interval: UInt64 = 60_000_000_000

    private var lastLog: UInt64?
    private var unlogged = 0

    /// Counts `count` more, seen at `now` (nanoseconds, a monotonic clock): how many to log now, this
    /// time included, or `nil` when the log said so within the interval.
    mutating func record(_ count: Int = 1, at now: UInt64) -> Int? {
        unlogged += count
        if let lastLog, now &- lastLog < Self.interval { return nil }
        lastLog = now
        defer { unlogged = 0 }
        return unlogged
    }
}
