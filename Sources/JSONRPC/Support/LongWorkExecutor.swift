import Dispatch

/// Threads of their own for the methods whose work grows with the data rather than with a page
/// (``RPCMethod/runsLong``: a search that scans, a sort of every sector, an import, an agenda's
/// expansion). Their synchronous work (an SQLite statement, a sort, a parse) holds the thread it runs
/// on until it ends or sees its cancel, and Swift's task pool has one thread per core: as many of them
/// at once as cores held every thread, and every other request waited for the first to end. Here each
/// runs on a thread of this executor, which starts one when none is free (up to
/// ``maximumThreads``), so the task pool stays free for the rest, and the system shares the cores.
///
/// A thread idle for ``idleSeconds`` ends. If no thread can be started and none runs, queued work
/// goes to Dispatch's global queue: slower to share, never stranded.
public final class LongWorkExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor every ``RPCMethod/runsLong`` method runs on.
    public static let shared = LongWorkExecutor()

    /// More long requests than this at once wait for a thread of this executor (still off the task pool).
    public let maximumThreads: Int
    static let idleSeconds: UInt64 = 30

    private struct State {
        var jobs: [UnownedJob] = []
        /// Threads waiting for a job.
        var idle = 0
        /// Threads started and not ended.
        var threads = 0
    }

    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var state = State()

    public init(maximumThreads: Int = 64) {
        self.maximumThreads = max(1, maximumThreads)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let start = lock.withLock {
            state.jobs.append(unowned)
            // More jobs queued than threads waiting to take them: one more thread, while allowed.
            if state.jobs.count > state.idle, state.threads < maximumThreads {
                state.threads += 1
                return true
            }
            lock.broadcast()
            return false
        }
        guard start else { return }
        do {
            try OSThread.detach(name: "long request work") { [self] in work() }
        } catch {
            let stranded = lock.withLock {
                state.threads -= 1
                // A thread waiting for work takes it; else one finishing its job does.
                lock.broadcast()
                guard state.threads == 0 else { return [UnownedJob]() }
                defer { state.jobs = [] }
                return state.jobs
            }
            for job in stranded {
                DispatchQueue.global().async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
            }
        }
    }

    /// Threads running now (busy or idle), for tests.
    public var threadCount: Int { lock.withLock { state.threads } }

    private func work() {
        while let job = next() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The next job, or nil once this thread has waited ``idleSeconds`` for one (the thread ends).
    private func next() -> UnownedJob? {
        lock.withLock {
            let deadline = monotonicNanoseconds() + Self.idleSeconds * 1_000_000_000
            while state.jobs.isEmpty {
                state.idle += 1
                let woken = lock.wait(until: deadline)
                state.idle -= 1
                if !woken, state.jobs.isEmpty {
                    state.threads -= 1
                    return nil
                }
            }
            return state.jobs.removeFirst()
        }
    }
}
