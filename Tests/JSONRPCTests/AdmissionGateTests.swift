@testable import JSONRPC
import Synchronization
import Testing

/// The in-flight bound: work past it waits in the gate's queue.
@Suite("Admission gate")
struct AdmissionGateTests {
    /// Holds nothing; only its lifetime is watched.
    final class Token: Sendable {}

    @Test("work started from the queue is let go: its closure, which holds the connection that holds the gate, is not kept")
    func startedWorkIsLetGo() {
        let gate = AdmissionGate(maxRunning: 1, maxWaiting: 4)
        weak var watched: Token?
        do {
            let token = Token()
            watched = token
            gate.submit {}
            gate.submit { _ = token }
        }
        #expect(watched != nil, "queued behind the running one")
        gate.release()
        gate.release()
        #expect(watched == nil)
        #expect(gate.waitUntilIdle(deadline: 0))
    }
}

@Suite("Admission gate: streams")
struct AdmissionGateStreamTests {
    @Test("a stream gives its slot to queued work, yet the gate is idle only once the stream ends")
    func streamFreesItsSlotButCountsForIdle() {
        let gate = AdmissionGate(maxRunning: 1, maxWaiting: 4)
        let started = Mutex(0)
        gate.submit { started.withLock { $0 += 1 } }
        gate.submit { started.withLock { $0 += 1 } }
        #expect(started.withLock { $0 } == 1, "the second waits behind the first")
        #expect(gate.becomeStream())
        #expect(started.withLock { $0 } == 2, "the stream's slot went to the queued work")
        gate.release()
        #expect(!gate.waitUntilIdle(deadline: 0), "the open stream is still work")
        gate.endStream()
        #expect(gate.waitUntilIdle(deadline: 0))
    }

    @Test("at most maxStreams streams are open at once")
    func streamsAreBounded() {
        let gate = AdmissionGate(maxRunning: 1, maxWaiting: 1)
        for _ in 0..<AdmissionGate.maxStreams {
            gate.submit {}
            #expect(gate.becomeStream())
        }
        gate.submit {}
        #expect(!gate.becomeStream(), "one more keeps its slot")
        gate.release()
        for _ in 0..<AdmissionGate.maxStreams { gate.endStream() }
        #expect(gate.waitUntilIdle(deadline: 0))
    }
}
