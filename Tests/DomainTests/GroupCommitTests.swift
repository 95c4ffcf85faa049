import SwitchboardCore
import Synchronization
import Testing

/// ``GroupCommit``: what queues while a batch commits is the next batch, whole and in order, and
/// outcomes are delivered in queue order.
@Suite("Group commit", .timeLimit(.minutes(10)))
struct GroupCommitTests {
    /// A commit that records its batches and holds the first one until the test releases it.
    final class HeldCommit: Sendable {
        private struct State {
            var batches: [[Int]] = []
            var started: CheckedContinuation<Void, Never>?
            var startedAlready = false
            var release: CheckedContinuation<Void, Never>?
            var released = false
        }

        private let state = Mutex(State())

        var batches: [[Int]] { state.withLock { $0.batches } }

        func commit(_ batch: [Int]) async -> [Result<String, any Error>] {
            let first = state.withLock { state in
                state.batches.append(batch)
                return state.batches.count == 1
            }
            if first {
                state.withLock { state in
                    state.startedAlready = true
                    return state.started.take()
                }?.resume()
                await withCheckedContinuation { continuation in
                    let go = state.withLock { state in
                        if !state.released { state.release = continuation }
                        return state.released
                    }
                    if go { continuation.resume() }
                }
            }
            return batch.map { $0 < 0 ? .failure(Refused(value: $0)) : .success("stored \($0)") }
        }

        /// Returns once the first batch is being committed.
        func untilStarted() async {
            await withCheckedContinuation { continuation in
                let started = state.withLock { state in
                    if !state.startedAlready { state.started = continuation }
                    return state.startedAlready
                }
                if started { continuation.resume() }
            }
        }

        func releaseFirst() {
            state.withLock { state in
                state.released = true
                return state.release.take()
            }?.resume()
        }
    }

    struct Refused: Error, Equatable { var value: Int }

    /// Outcomes in the order they were delivered.
    final class Delivered: Sendable {
        private let outcomes = Mutex<[String]>([])
        var all: [String] { outcomes.withLock { $0 } }
        func add(_ value: Int, _ outcome: Result<String, any Error>) {
            outcomes.withLock { $0.append((try? outcome.get()) ?? "failed \(value)") }
        }
    }

    @Test("sends queued while a batch commits are the next batch, in order; each outcome is its own; delivered in order")
    func queuedSendsCommitTogether() async throws {
        let held = HeldCommit()
        let delivered = Delivered()
        let queue = GroupCommit<Int, String>(maxBatch: 3) { batch in await held.commit(batch) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await queue.submit(1) { delivered.add(1, $0) } }
            await held.untilStarted()
            // Queued while the first batch is held: 2, -3 (fails), 4 and 5 (past maxBatch: a third batch).
            for value in [2, -3, 4, 5] { queue.enqueue(value) { delivered.add(value, $0) } }
            group.addTask { await queue.submit(6) { delivered.add(6, $0) } }
            held.releaseFirst()
            await group.waitForAll()
        }
        // 6 may have queued before or after the second batch was taken: either way in order.
        let batches = held.batches
        #expect(batches.first == [1] && batches.dropFirst().first == [2, -3, 4])
        #expect(batches.flatMap { $0 } == [1, 2, -3, 4, 5, 6])
        #expect(delivered.all == ["stored 1", "stored 2", "failed -3", "stored 4", "stored 5", "stored 6"])
    }

    @Test("a commit that answers fewer outcomes than requests fails the rest instead of leaving them waiting")
    func missingOutcomesFail() async {
        let delivered = Delivered()
        let queue = GroupCommit<Int, String> { batch in batch.dropLast().map { .success("stored \($0)") } }
        await queue.submit(1) { delivered.add(1, $0) }
        #expect(delivered.all == ["failed 1"])
    }
}
