@testable import JSONRPC
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
