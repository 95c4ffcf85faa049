/// Bounds how many requests run at once.
///
/// Past the bound, new work waits in a short queue, so the input thread can still read and act on
/// `$/cancelRequest`; once that queue is full too, ``submit(_:)`` blocks the input thread, which stops
/// reading: backpressure, with nothing dropped.
final class AdmissionGate: @unchecked Sendable {
    private let lock = ConditionLock()
    private let maxRunning: Int
    private let maxWaiting: Int
    private var running = 0
    /// Queued work from `waitingHead` on; a started one's slot is emptied at once, since its closure
    /// holds the connection, which holds this gate (kept, it would keep the connection alive for ever).
    private var waiting: [(@Sendable () -> Void)?] = []
    private var waitingHead = 0

    init(maxRunning: Int, maxWaiting: Int) {
        self.maxRunning = max(1, maxRunning)
        self.maxWaiting = max(1, maxWaiting)
    }

    /// Runs `start` now if a slot is free, else queues it; while the queue is full, calls
    /// `beforeWaiting` (the input thread sends the replies it holds) and blocks.
    /// Call from the input thread only. Every started work must call ``release()`` when done.
    func submit(_ start: @escaping @Sendable () -> Void, beforeWaiting: () -> Void = {}) {
        enum Decision { case run, queued, full }
        while true {
            let decision: Decision = lock.withLock {
                if running < maxRunning {
                    running += 1
                    return .run
                }
                guard waiting.count - waitingHead < maxWaiting else { return .full }
                waiting.append(start)
                return .queued
            }
            switch decision {
            case .run:
                start()
                return
            case .queued:
                return
            case .full:
                beforeWaiting()
                lock.withLock {
                    while running >= maxRunning, waiting.count - waitingHead >= maxWaiting { lock.wait() }
                }
            }
        }
    }

    /// Runs `start` now if a slot is free, else queues it; false (and nothing done) when the queue is
    /// full too. Never blocks: for connections that refuse instead (``AdmissionPolicy/refuse(_:)``).
    func trySubmit(_ start: @escaping @Sendable () -> Void) -> Bool {
        enum Decision { case run, queued, full }
        let decision: Decision = lock.withLock {
            if running < maxRunning {
                running += 1
                return .run
            }
            guard waiting.count - waitingHead < maxWaiting else { return .full }
            waiting.append(start)
            return .queued
        }
        if decision == .run { start() }
        return decision != .full
    }

    /// How many requests may run and wait at once.
    var capacity: Int { maxRunning + maxWaiting }

    /// Frees the slot of finished work, starting the next queued one in it.
    func release() {
        let next: (@Sendable () -> Void)? = lock.withLock {
            defer { lock.broadcast() }
            guard waitingHead < waiting.count else {
                running -= 1
                return nil
            }
            let next = waiting[waitingHead]
            waiting[waitingHead] = nil
            waitingHead += 1
            if waitingHead == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                waitingHead = 0
            } else if waitingHead > 64, waitingHead * 2 > waiting.count {
                waiting.removeFirst(waitingHead)
                waitingHead = 0
            }
            return next
        }
        next?()
    }

    /// Blocks until no work runs or waits; with a deadline (monotonic nanoseconds), false on time-out.
    @discardableResult
    func waitUntilIdle(deadline: UInt64? = nil) -> Bool {
        lock.withLock {
            while running > 0 || waitingHead < waiting.count {
                if let deadline {
                    if monotonicNanoseconds() >= deadline { return false }
                    lock.wait(until: deadline)
                } else {
                    lock.wait()
                }
            }
            return true
        }
    }

}
