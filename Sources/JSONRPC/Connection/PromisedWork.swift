/// Work a connection promised its peer to do after an answer — a `chat.send` answered `pending` is
/// stored afterwards (``RequestContext/afterAnswer(_:)``) — counted from the moment its answer is out
/// until it has run, so that a host waits for it before it exits: also when the drain time has run out
/// or the peer closed its end (it cannot hear the outcome then, but the write was promised).
final class PromisedWork: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var pending = 0

    func begin(_ count: Int = 1) {
        lock.withLock { pending += count }
    }

    func end(_ count: Int = 1) {
        guard count > 0 else { return }
        lock.withLock {
            pending -= count
            if pending <= 0 { lock.broadcast() }
        }
    }

    var count: Int { lock.withLock { pending } }

    /// Blocks a plain thread until none is pending; `false` if `deadline` (monotonic ns) passed first.
    func wait(until deadline: UInt64) -> Bool {
        lock.withLock {
            while pending > 0 {
                if monotonicNanoseconds() >= deadline { return false }
                lock.wait(until: deadline)
            }
            return true
        }
    }
}
