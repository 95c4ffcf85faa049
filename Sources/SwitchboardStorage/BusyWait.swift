import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// How a connection waits while another connection (another host, a script) holds the lock it needs:
/// SQLite's own schedule of growing sleeps, `timeout` in all, as `sqlite3_busy_timeout` waits — but it
/// gives up as soon as the task the statement runs for is cancelled. A cancelled request waiting for
/// another process's write is so answered at once, not when the wait runs out: GRDB interrupts an
/// async access's statements on cancel, but SQLite's own busy wait does not look at interrupts.
///
/// The callback runs on the thread running the statement: GRDB runs an async access's block in the
/// caller's task, and a synchronous read runs in the task that calls it, so `Task.isCancelled` is that
/// task's. A statement outside any task (opening, migrating) waits the whole `timeout`.
struct BusyWait: Sendable {
    /// The longest wait in all, as SQLite counts it (the sum of its sleeps).
    var timeout: Duration = .seconds(10)

    /// Told before every sleep, with the number of tries so far (tests: a statement is waiting).
    var waiting: (@Sendable (_ tries: Int) -> Void)?

    var mode: Database.BusyMode {
        .callback { [self] tries in retries(after: tries) }
    }

    /// SQLite's `sqliteDefaultBusyCallback` schedule, in milliseconds; 100 ms each after the last.
    private static let delays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// A cancel is seen within this many milliseconds of sleep.
    private static let slice = 5

    /// Whether SQLite should try again after `tries` failed tries: false once the task is cancelled or
    /// the time is spent; true after a sleep otherwise.
    func retries(after tries: Int) -> Bool {
        guard !Task.isCancelled else { return false }
        let (delay, prior) = Self.step(tries)
        let limit = Int(timeout.components.seconds) * 1_000 + Int(timeout.components.attoseconds / 1_000_000_000_000_000)
        var left = min(delay, limit - prior)
        guard left > 0 else { return false }
        waiting?(tries)
        while left > 0 {
            let sleep = min(left, Self.slice)
            usleep(UInt32(sleep) * 1_000)
            left -= sleep
            if Task.isCancelled { return false }
        }
        return true
    }

    /// The sleep before try `tries + 1`, and the sleeps before it in all.
    static func step(_ tries: Int) -> (delay: Int, prior: Int) {
        let tries = max(tries, 0)
        if tries < delays.count {
            return (delays[tries], delays[..<tries].reduce(0, +))
        }
        let last = delays[delays.count - 1]
        let before = delays.reduce(0, +) - last
        return (last, before + last * min(tries - delays.count + 1, Int(Int32.max)))
    }
}
