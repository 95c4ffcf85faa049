/// Lines on a plugin's stdout that are not JSON ("Server starting on stdio..."): real MCP servers print
/// such a line now and then, and the official SDK logs it and goes on. Each is skipped; the first is
/// logged, then at most one summary a minute; a plugin that writes more than ``limit`` of them within a
/// minute is broken, not chatty (`reason: "protocol"`, as any other violation).
struct StrayLines {
    /// The most stray lines a plugin may write within ``window``.
    static let limit = 100
    /// The span stray lines are counted over: a minute (as ``LogThrottle/interval``, between two log lines).
    static let window: UInt64 = 60_000_000_000

    /// What to do about one more stray line.
    enum Verdict: Equatable {
        /// Skip it and log `skipped` lines (this one included) since the last log line.
        case log(skipped: Int)
        /// Skip it quietly: the log said so within the window.
        case skip
        /// Too many within the window: stop the plugin.
        case tooMany
    }

    /// When the stray lines of the last window came, oldest first (nanoseconds, a monotonic clock).
    private var recent: [UInt64] = []
    private var log = LogThrottle()

    /// Counts one more stray line, seen at `now`.
    mutating func record(at now: UInt64) -> Verdict {
        recent.removeAll { now &- $0 >= Self.window }
        recent.append(now)
        guard recent.count <= Self.limit else { return .tooMany }
        return log.record(at: now).map { .log(skipped: $0) } ?? .skip
    }
}
