import Dispatch
import JSONRPC
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``LongWorkExecutor``: work that holds its thread runs on threads of its own, so Swift's task pool
/// keeps answering the rest.
@Suite("Long work runs off the task pool")
struct LongWorkExecutorTests {
    @Test("more tasks holding their thread than the machine has cores leave the task pool free, and each gets a thread")
    func blockedWorkLeavesThePoolFree() async throws {
        let executor = LongWorkExecutor(maximumThreads: 64)
        let count = BlockedThreads.cores + 2
        let gate = DispatchSemaphore(value: 0)
        let started = BlockedThreads()
        var held: [Task<Void, Never>] = []
        for _ in 0..<count {
            held.append(Task(executorPreference: executor) {
                started.arrive()
                gate.wait()   // holds this thread, as a long SQLite statement does
            })
        }
        // Every one runs at once: none waits for another's thread.
        await started.untilArrived(count)
        #expect(executor.threadCount >= count)
        // The task pool still runs work (it would not with every pool thread held).
        let answer = await Task { 42 }.value
        #expect(answer == 42)
        for _ in 0..<count { gate.signal() }
        for task in held { await task.value }
    }

    @Test("at its thread limit, further work waits for a thread of its own and runs once one is free")
    func limitQueues() async throws {
        let executor = LongWorkExecutor(maximumThreads: 1)
        let first = Task(executorPreference: executor) { 1 }
        let second = Task(executorPreference: executor) { 2 }
        #expect(await first.value + second.value == 3)
        #expect(executor.threadCount == 1)
    }
}

/// Counts arrivals and lets a task wait for a number of them, without sleeping.
final class BlockedThreads: Sendable {
    static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    private let state = Mutex<(count: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))

    func arrive() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.0 <= count }.map(\.1)
            state.waiters.removeAll { $0.0 <= count }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    func untilArrived(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
