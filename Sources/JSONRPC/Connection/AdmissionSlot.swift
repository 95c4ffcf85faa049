import Synchronization

/// The admission slot a task-run request holds (``AdmissionGate``): released once when its task ends,
/// or handed back early when the request becomes a long-lived stream (``RequestContext/becomeStream()``).
final class AdmissionSlot: Sendable {
    private let gate: AdmissionGate
    private let state = Atomic<UInt8>(State.held)

    private enum State {
        static let held: UInt8 = 0
        static let stream: UInt8 = 1
        static let released: UInt8 = 2
    }

    init(gate: AdmissionGate) { self.gate = gate }

    /// Gives the slot back and counts the request as an open stream; false when the gate has all the
    /// streams it allows. True again for a stream already.
    func becomeStream() -> Bool {
        switch state.load(ordering: .acquiring) {
        case State.stream: return true
        case State.held:
            guard gate.becomeStream() else { return false }
            state.store(State.stream, ordering: .releasing)
            return true
        default: return false
        }
    }

    /// The request ended: frees its slot, or ends its stream. Once.
    func release() {
        switch state.exchange(State.released, ordering: .acquiringAndReleasing) {
        case State.held: gate.release()
        case State.stream: gate.endStream()
        default: break
        }
    }
}
