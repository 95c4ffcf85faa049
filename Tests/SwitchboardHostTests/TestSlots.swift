import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How many tests run off the cooperative pool at once: as many as there are cores, at least two.
///
/// On the pool, blocking tests were limited by its width without anyone saying so; off it, every test
/// Swift Testing starts would run at once, each with a host process or two, and a 2-core machine would
/// take minutes to answer any of them. Waiting for a slot suspends; it holds no thread.
final class TestSlots: Sendable {
    static let shared = TestSlots(count: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(free: count)) }

    /// Runs `body` once a slot is free.
    func withSlot<T>(_ body: () async throws -> T) async rethrows -> T {
        await take()
        defer { give() }
        return try await body()
    }

    private func take() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
