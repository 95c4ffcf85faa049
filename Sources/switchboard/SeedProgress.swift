import Jansson
import JSONRPC
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where seeding reports how far it got: a progress bar on stderr when stderr is a terminal, else
/// a line on stderr at most once a second (a pipe or a log file gets a readable trace); and
/// `$/progress` to every request waiting on the database that carries a progress token.
final class SeedProgress: Sendable {
    private struct State {
        var label = ""
        var total = 1
        var lastPercent = -1
        var lastLine: Int64 = 0
        var listeners: [RequestContext] = []
    }

    private let terminal: Bool
    private let toStderr: Bool
    private let state = Mutex(State())

    /// - Parameter stderr: false to report to requests only.
    init(stderr: Bool = true) {
        terminal = isatty(STDERR_FILENO) == 1
        toStderr = stderr
    }

    /// Also reports to `context` (when it carries a progress token) from now on.
    func add(_ context: RequestContext) {
        guard context.progressToken != nil else { return }
        state.withLock { $0.listeners.append(context) }
    }

    /// Stops reporting to the requests added so far (they have their answer).
    func removeRequests() {
        state.withLock { $0.listeners = [] }
    }

    func start(_ label: String, total: Int) {
        state.withLock { state in
            state.label = label
            state.total = max(total, 1)
            state.lastPercent = -1
            state.lastLine = Self.monotonicMilliseconds()
        }
        if toStderr, !terminal { writeLine("switchboard: \(label)", to: STDERR_FILENO) }
        update(0)
    }

    func update(_ done: Int) {
        let now = Self.monotonicMilliseconds()
        let (label, total, percent, line, listeners): (String, Int, Int, Bool, [RequestContext]) = state.withLock { state in
            let percent = min(100, done * 100 / state.total)
            let changed = percent != state.lastPercent
            state.lastPercent = percent
            let line = !terminal && now - state.lastLine >= 1_000
            if line { state.lastLine = now }
            return (state.label, state.total, changed ? percent : -1, line, changed ? state.listeners : [])
        }
        if toStderr, terminal, percent >= 0 {
            let filled = percent / 4
            writeLine("\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 25 - filled))] \(percent)%",
                      to: STDERR_FILENO, newline: false)
        } else if toStderr, line {
            writeLine("switchboard: seeding: \(min(100, done * 100 / total))% (\(done) of \(total))", to: STDERR_FILENO)
        }
        for context in listeners {
            context.reportProgress(["stage": .string(label), "done": .integer(Int64(done)), "total": .integer(Int64(total))])
        }
    }

    func finish() {
        let total = state.withLock { $0.total }
        update(total)
        guard toStderr else { return }
        writeLine(terminal ? "" : "switchboard: seeding done", to: STDERR_FILENO)
    }

    private static func monotonicMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
