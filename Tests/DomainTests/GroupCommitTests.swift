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

    /// A commit that records its batches and stores each request at once.
    final class Recorded: Sendable {
        private let recorded = Mutex<[[Int]]>([])
        var batches: [[Int]] { recorded.withLock { $0 } }
        func commit(_ batch: [Int]) -> [Result<String, any Error>] {
            recorded.withLock { $0.append(batch) }
            return batch.map { .success("stored \($0)") }
        }
    }

    /// Lanes stand for connections.
    final class Lane: Sendable {}

    @Test("a place taken commits in its place, whichever is released first: its lane's later requests wait, other lanes do not")
    func reservedPlaceKeepsOrder() async {
        let recorded = Recorded()
        let delivered = Delivered()
        let queue = GroupCommit<Int, String> { batch in recorded.commit(batch) }
        let (a, b) = (Lane(), Lane())
        let first = queue.place(1, lane: ObjectIdentifier(a))
        let second = queue.place(2, lane: ObjectIdentifier(a))
        let other = queue.place(3, lane: ObjectIdentifier(b))
        for place in [first, second, other] { place.take() }
        // Released before the place ahead of it in its lane: it waits for that one.
        second.release { delivered.add(2, $0) }
        // Another lane's request is not held behind it.
        await other.submit { delivered.add(3, $0) }
        // Nor is a request queued without a lane.
        await queue.submit(9) { delivered.add(9, $0) }
        #expect(recorded.batches == [[3], [9]])
        await first.submit { delivered.add(1, $0) }
        // Queued after both: its outcome follows theirs.
        await queue.submit(4) { delivered.add(4, $0) }
        #expect(recorded.batches.flatMap { $0 } == [3, 9, 1, 2, 4])
        #expect(delivered.all == ["stored 3", "stored 9", "stored 1", "stored 2", "stored 4"])
        // A second release does nothing: the request was stored once.
        #expect(!first.release { delivered.add(1, $0) })
        #expect(recorded.batches.flatMap { $0 } == [3, 9, 1, 2, 4])
    }

    @Test("a place taken and dropped unreleased commits nothing and holds nothing back; one released untaken takes its place then")
    func droppedReservationGivesUp() async {
        let recorded = Recorded()
        let delivered = Delivered()
        let queue = GroupCommit<Int, String> { batch in recorded.commit(batch) }
        let lane = Lane()
        var first: GroupCommit<Int, String>.Place? = queue.place(1, lane: ObjectIdentifier(lane))
        first?.take()
        let second = queue.place(2, lane: ObjectIdentifier(lane))
        second.take()
        second.release { delivered.add(2, $0) }
        #expect(first != nil)
        first = nil
        await queue.submit(3) { delivered.add(3, $0) }
        #expect(recorded.batches.flatMap { $0 } == [2, 3])
        #expect(delivered.all == ["stored 2", "stored 3"])
        // Never taken and dropped: nothing. Released without being taken: it takes its place then.
        _ = queue.place(5, lane: ObjectIdentifier(lane))
        await queue.place(4, lane: ObjectIdentifier(lane)).submit { delivered.add(4, $0) }
        #expect(recorded.batches.flatMap { $0 } == [2, 3, 4])
        #expect(delivered.all == ["stored 2", "stored 3", "stored 4"])
    }

    @Test("places taken, released and dropped in any order, over three lanes and small batches: each released request is stored once, in its lane's order; a dropped one never",
          arguments: 0..<40)
    func placesInAnyOrder(seed: Int) async {
        var random = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let recorded = Recorded()
        let delivered = Delivered()
        let queue = GroupCommit<Int, String>(maxBatch: 1 + Int(random.next() % 4)) { batch in recorded.commit(batch) }
        let lanes = [Lane(), Lane(), Lane()]
        let count = 10 + Int(random.next() % 30)
        // Each request: its lane, and whether it is released (else dropped once taken).
        let laneOf = (0..<count).map { _ in Int(random.next() % 3) }
        let released = (0..<count).map { _ in random.next() % 5 != 0 }
        var places: [GroupCommit<Int, String>.Place?] = (0..<count).map { queue.place($0, lane: ObjectIdentifier(lanes[laneOf[$0]])) }
        // Taken in request order (as answers go out), released or dropped in a random order meanwhile.
        var taken = 0
        var open = Set<Int>()
        var barriers = 0
        while taken < count || !open.isEmpty {
            if taken < count, open.isEmpty || random.next() % 2 == 0 {
                places[taken]?.take()
                open.insert(taken)
                taken += 1
                continue
            }
            let index = open.sorted()[Int(random.next() % UInt64(open.count))]
            open.remove(index)
            if released[index] {
                places[index]?.release { delivered.add(index, $0) }
            }
            places[index] = nil
            // Now and then everything ready commits before the next step: a request with no lane passes
            // held places and is stored after every ready one queued before it.
            if random.next() % 2 == 0 {
                barriers -= 1
                let barrier = barriers
                await queue.submit(barrier) { delivered.add(barrier, $0) }
            }
        }
        // Queued after all of them, with nothing held: delivered last.
        await queue.submit(count) { delivered.add(count, $0) }
        let stored = recorded.batches.flatMap { $0 }.filter { $0 >= 0 }
        let expected = (0..<count).filter { released[$0] }
        #expect(stored.sorted() == expected + [count], "each released request once, no dropped one (seed \(seed))")
        #expect(stored.last == count)
        for lane in 0..<3 {
            let order = stored.filter { $0 < count && laneOf[$0] == lane }
            #expect(order == order.sorted(), "lane \(lane) in the order its places were taken (seed \(seed)): \(order)")
        }
        #expect(delivered.all == recorded.batches.flatMap { $0 }.map { "stored \($0)" }, "delivered in the order stored (seed \(seed))")
        #expect(recorded.batches.allSatisfy { $0.count <= queue.maxBatch })
    }
}
