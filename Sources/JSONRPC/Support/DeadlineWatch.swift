/// Runs an action when a deadline passes, unless it was cancelled first: the time-outs of plugin calls,
/// and PostgreSQL's waits for a connection or an answer.
///
/// One thread for every call, sleeping until the earliest deadline, instead of a timer task per call
/// (whose cancellation wakes a pool thread on every answer). Calls of one plugin share its `timeoutMs`,
/// and a store's waits its `connect_timeout`, so a new deadline is almost never the earliest and adding
/// it wakes no one. While that thread cannot be started (the process at its thread limit), each
/// deadline is a task that sleeps instead. Actions run on that thread: they must not block.
public final class DeadlineWatch: @unchecked Sendable {
    public static let shared = DeadlineWatch()

    private let lock = ConditionLock()
    private var actions: [Int: (deadline: UInt64, run: @Sendable () -> Void)] = [:]
    private var earliest = UInt64.max
    private var nextKey = 0
    private var started = false

    /// Runs `action` (on the watch's thread) in `milliseconds`, unless ``cancel(_:)`` gets the key first.
    public func schedule(in milliseconds: Int, _ action: @escaping @Sendable () -> Void) -> Int {
        let deadline = monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        return lock.withLock {
            if !started {
                started = (try? OSThread.detach(name: "sb-deadlines") { [self] in watch() }) != nil
            }
            nextKey += 1
            actions[nextKey] = (deadline, action)
            if !started {
                let key = nextKey
                Task { [self] in
                    try? await Task.sleep(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000)
                    lock.withLock { actions.removeValue(forKey: key) }?.run()
                }
            } else if deadline < earliest {
                earliest = deadline
                lock.broadcast()
            }
            return nextKey
        }
    }

    public func cancel(_ key: Int) {
        lock.withLock { _ = actions.removeValue(forKey: key) }
    }

    private func watch() {
        while true {
            let due: [@Sendable () -> Void] = lock.withLock {
                while true {
                    let now = monotonicNanoseconds()
                    let expired = actions.filter { $0.value.deadline <= now }
                    if !expired.isEmpty {
                        for key in expired.keys { actions[key] = nil }
                        earliest = actions.values.map(\.deadline).min() ?? .max
                        return expired.values.map(\.run)
                    }
                    earliest = actions.values.map(\.deadline).min() ?? .max
                    if earliest == .max { lock.wait() } else { _ = lock.wait(until: earliest) }
                }
            }
            due.forEach { $0() }
        }
    }
}
