import Synchronization

/// Runs async work from a plain thread (the drain at exit, the main thread) and waits for it, up to a
/// deadline: when every thread of Swift's pool is held by requests that ignore their cancellation,
/// the work may never run, and the caller must still go on.
///
/// - Important: Never call it from a task: it blocks the calling thread.
public enum PlainThreadWait {
    /// Runs `work` in a task; true once it has run, false if `deadline` (monotonic ns) passed first.
    @discardableResult
    public static func run(until deadline: UInt64, _ work: @escaping @Sendable () async -> Void) -> Bool {
        let lock = ConditionLock()
        let finished = Atomic<Bool>(false)
        Task {
            await work()
            lock.withLock {
                finished.store(true, ordering: .relaxed)
                lock.broadcast()
            }
        }
        return lock.withLock {
            while !finished.load(ordering: .relaxed) {
                if monotonicNanoseconds() >= deadline { return false }
                lock.wait(until: deadline)
            }
            return true
        }
    }
}
