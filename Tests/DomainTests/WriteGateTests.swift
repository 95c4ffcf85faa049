@testable import SwitchboardStorage
import Synchronization
import Testing

/// `WriteGate`: writes go in one at a time and in order, and one cancelled while it waits its turn goes
/// at once. A waiter that ignored its cancel would wait until the first write leaves, which this test
/// does only after the cancelled one has thrown (the suite's time limit ends a hang).
@Suite("The write gate", .timeLimit(.minutes(5)))
struct WriteGateTests {
    @Test("a write waiting its turn throws CancellationError at its cancel while the gate stays taken; the next waiter gets it after")
    func cancelledWaiter() async throws {
        let gate = WriteGate()
        try await gate.enter()
        let order = Entries()
        let (queued, queue) = AsyncStream<Void>.makeStream()
        var waiting = queued.makeAsyncIterator()
        let cancelled = Task {
            queue.yield()
            try await gate.enter()
            order.entries.withLock { $0.append("cancelled entered") }
            gate.leave()
        }
        _ = await waiting.next()
        let next = Task {
            try await gate.enter()
            order.entries.withLock { $0.append("next entered") }
            gate.leave()
        }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(order.entries.withLock { $0 }.isEmpty, "nobody entered while the first held the gate")
        gate.leave()
        try await next.value
        #expect(order.entries.withLock { $0 } == ["next entered"])
        try await gate.enter()
        gate.leave()
    }

    @Test("writes enter one at a time")
    func oneAtATime() async throws {
        let gate = WriteGate()
        let inside = Inside()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await gate.enter()
                    inside.counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    await Task.yield()
                    inside.counts.withLock { $0.now -= 1 }
                    gate.leave()
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.counts.withLock { $0.most } == 1)
    }
}

private final class Entries: Sendable {
    let entries = Mutex<[String]>([])
}

private final class Inside: Sendable {
    let counts = Mutex((now: 0, most: 0))
}
