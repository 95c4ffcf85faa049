/// Bounds how many requests run at once.
///
/// Past the bound, new work waits in a short queue, so the input thread can still read and act on
/// `$/cancelRequest`; once that queue is full too, ``submit(_:)`` blocks the input thread, which stops
/// reading: backpressure, with nothing dropped.
///
/// A long-lived stream (MCP `subscriptions/listen`) gives its slot back once it is open
/// (``becomeStream()``): it counts as work until it ends (``waitUntilIdle(deadline:)`` waits for it),
/// but not against the bound, so open streams never stop the input thread.
final class AdmissionGate: @unchecked Sendable {
    /// Streams one connection may keep open at once.
    static let maxStreams = 256

    private let lock = ConditionLock()
    private let maxRunning: Int
    private let maxWaiting: Int
    private var running = 0
    private var streams = 0
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
        while true {
            switch admit(start) {
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
        let decision = admit(start)
        if decision == .run { start() }
        return decision != .full
    }

    /// What becomes of new work: it takes a free slot (the caller runs it), waits in the queue, or
    /// finds both full (nothing done).
    private enum Admission { case run, queued, full }

    private func admit(_ start: @escaping @Sendable () -> Void) -> Admission {
        lock.withLock {
            if running < maxRunning {
                running += 1
                return .run
            }
            guard waiting.count - waitingHead < maxWaiting else { return .full }
            waiting.append(start)
            return .queued
        }
    }

    /// How many requests may run and wait at once.
    var capacity: Int { maxRunning + maxWaiting }

    /// Frees the slot of finished work, starting the next queued one in it.
    func release() {
        lock.withLock { freeSlot() }?()
    }

    /// Moves running work out of its slot into the open streams, starting the next queued work in the
    /// slot; false (nothing changed) when ``maxStreams`` streams are open. End it with ``endStream()``.
    func becomeStream() -> Bool {
        let outcome: (moved: Bool, next: (@Sendable () -> Void)?) = lock.withLock {
            guard streams < Self.maxStreams else { return (false, nil) }
            streams += 1
            return (true, freeSlot())
        }
        outcome.next?()
        return outcome.moved
    }

    /// A stream (``becomeStream()``) ended.
    func endStream() {
        lock.withLock {
            streams -= 1
            lock.broadcast()
        }
    }

    /// Frees one running slot under the lock, handing it to the next queued work, which the caller
    /// starts once the lock is let go.
    private func freeSlot() -> (@Sendable () -> Void)? {
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

    /// Blocks until no work runs, streams or waits; with a deadline (monotonic nanoseconds), false on time-out.
    @discardableResult
    func waitUntilIdle(deadline: UInt64? = nil) -> Bool {
        lock.withLock {
            while running > 0 || streams > 0 || waitingHead < waiting.count {
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
