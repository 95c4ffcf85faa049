import Synchronization

/// Lets one ``AppDatabase/write(_:)`` at a time into GRDB's writer, in the order they came, and lets a
/// write still waiting its turn go at its request's cancel. GRDB queues writes itself, but a cancel does
/// not reach a write queued there: one waiting behind a write that waits for another process's lock
/// (``BusyWait``, up to 10 s) answered its cancel only when that wait ended.
final class WriteGate: Sendable {
    private struct Waiter {
        let number: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var taken = false
        var waiters: [Waiter] = []
        var numbered: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Returns once this write may go in; throws `CancellationError` when its task is cancelled first.
    /// Each return is followed by one ``leave()``.
    func enter() async throws {
        let number: UInt64? = state.withLock { state in
            guard state.taken else {
                state.taken = true
                return nil
            }
            state.numbered += 1
            return state.numbered
        }
        guard let number else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock: a cancel either came before (seen here) or finds the waiter listed; and
                // a `leave()` since the number was taken, which found no waiter and opened the gate, is
                // seen here too (the gate is taken now), so no write waits at an open gate.
                enum Next { case wait, go, cancelled }
                let next = state.withLock { state -> Next in
                    if Task.isCancelled { return .cancelled }
                    guard state.taken else {
                        state.taken = true
                        return .go
                    }
                    state.waiters.append(Waiter(number: number, continuation: continuation))
                    return .wait
                }
                switch next {
                case .wait: break
                case .go: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.number == number }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Hands the gate to the next write waiting, or opens it.
    func leave() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }
}
