import JSONRPC
import Synchronization

/// The one thread that starts plugins. `PR_SET_PDEATHSIG` fires when the thread that spawned a child
/// ends, and Swift's pool threads may end when idle; this one lives as long as the process, so a
/// plugin is killed when the host dies, not when a worker thread retires.
final class SpawnThread: @unchecked Sendable {
    static let shared = SpawnThread()

    private let lock = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private let started = Atomic<Bool>(false)

    /// Runs `body` on the spawn thread and returns its result; throws when that thread cannot be started.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(ThreadStartError) -> T {
        try startIfNeeded()
        return await withCheckedContinuation { continuation in
            lock.withLock {
                jobs.append { continuation.resume(returning: body()) }
                lock.broadcast()
            }
        }
    }

    /// Starts the thread unless it runs; a failed start is tried again by the next call.
    private func startIfNeeded() throws(ThreadStartError) {
        guard started.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else { return }
        do {
            try OSThread.detach(name: "sb-plugin-spawn") { [self] in
                while true {
                    let batch: [@Sendable () -> Void] = lock.withLock {
                        while jobs.isEmpty { lock.wait() }
                        defer { jobs = [] }
                        return jobs
                    }
                    batch.forEach { $0() }
                }
            }
        } catch {
            started.store(false, ordering: .sequentiallyConsistent)
            throw error
        }
    }
}
