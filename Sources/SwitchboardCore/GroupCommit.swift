import Synchronization

/// Group commit: requests queued while a batch is being committed are committed together as the
/// next batch, so a burst of writes pays for one transaction per batch instead of one per request.
///
/// One batch commits at a time, in a task of its own; it takes everything queued and released when it
/// starts (at most ``maxBatch``). Nothing waits for a timer: a lone request commits at once, and requests only
/// gather while the one before them is being written.
///
/// ```swift
/// let queue = GroupCommit<Send, Stored> { batch in await service.store(batch) }
/// await queue.submit(send) { outcome in notify(outcome) }
/// ```
///
/// A request can also take its place at one moment and be released later (``place(_:lane:)``):
/// `chat.send` takes its place as its answer goes out and releases it once the answer is out, so that
/// a send made after that answer is stored after it, and what the commit notifies follows the answer.
/// A batch then takes the released requests in queue order, leaving out those of a lane behind one of
/// its places still held.
///
/// - Important: `commit` answers one outcome per request, in the batch's order (a request it gives
///   none gets ``Missing``). Outcomes are delivered in commit order: every `deliver` of a batch runs,
///   in order, before any of the next batch.
public final class GroupCommit<Request: Sendable, Success: Sendable>: Sendable {
    public typealias Outcome = Result<Success, any Error>

    /// The outcome of a request that `commit` gave no outcome (a bug in `commit`, never a hang).
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "the batch's commit gave no outcome for this request" }
    }

    /// What one queued request is waiting for.
    private struct Entry: Sendable {
        var number: UInt64
        var request: Request
        /// Requests of one lane commit in queue order; `nil` orders against no held place.
        var lane: ObjectIdentifier?
        /// `nil` while the place is held: taken and not released yet.
        var deliver: (@Sendable (Outcome) -> Void)?
    }

    private struct Queue {
        var entries: [Entry] = []
        var committing = false
        var nextNumber: UInt64 = 0

        /// The next entry's number.
        mutating func take() -> UInt64 {
            defer { nextNumber &+= 1 }
            return nextNumber
        }

        /// Marks a drain as started; false when one runs already.
        mutating func startCommitting() -> Bool {
            guard !committing else { return false }
            committing = true
            return true
        }
    }

    /// The most requests committed together.
    public let maxBatch: Int
    private let commit: @Sendable ([Request]) async -> [Outcome]
    private let queue = Mutex(Queue())

    /// - Parameter commit: stores a batch and answers one outcome per request, in order.
    public init(maxBatch: Int = 256, commit: @escaping @Sendable ([Request]) async -> [Outcome]) {
        self.maxBatch = max(1, maxBatch)
        self.commit = commit
    }

    /// Queues `request` and returns once its outcome has been delivered to `deliver`.
    public func submit(_ request: Request, deliver: @escaping @Sendable (Outcome) -> Void) async {
        await Self.delivered(deliver) { deliver in
            enqueue(request, deliver: deliver)
            return true
        }
    }

    /// Runs `queue` with `deliver` made to resume the caller too, and returns once it has run; at once
    /// when `queue` says it queued nothing.
    private static func delivered(_ deliver: @escaping @Sendable (Outcome) -> Void,
                                  queue: (@escaping @Sendable (Outcome) -> Void) -> Bool) async {
        await withCheckedContinuation { continuation in
            let queued = queue { outcome in
                deliver(outcome)
                continuation.resume()
            }
            if !queued { continuation.resume() }
        }
    }

    /// Queues `request` at once, without waiting; `deliver` gets its outcome when its batch committed.
    public func enqueue(_ request: Request, deliver: @escaping @Sendable (Outcome) -> Void) {
        let start = queue.withLock { queue in
            queue.entries.append(Entry(number: queue.take(), request: request, deliver: deliver))
            return queue.startCommitting()
        }
        if start { Task { await drain() } }
    }

    /// A place for `request` in the queue, taken by ``Place/take()`` and released by
    /// ``Place/submit(deliver:)``. A place taken and dropped unreleased is given up: nothing is
    /// committed for it.
    public func place(_ request: Request, lane: ObjectIdentifier) -> Place {
        Place(queue: self, request: request, lane: lane)
    }

    /// A request's place in the queue: taken at one moment (`chat.send`: as its answer goes out, so
    /// before the client can send again), released later (once the answer is out). Requests of its lane
    /// queued after it wait for it while it is taken and not released; other lanes do not.
    public final class Place: Sendable {
        private enum State {
            case waiting
            case taken(UInt64)
            case released
        }

        private let commits: GroupCommit
        private let request: Request
        private let lane: ObjectIdentifier
        private let state = Mutex(State.waiting)

        fileprivate init(queue: GroupCommit, request: Request, lane: ObjectIdentifier) {
            commits = queue
            self.request = request
            self.lane = lane
        }

        /// Takes the place at the end of the queue now; a second call does nothing.
        public func take() {
            state.withLock { state in
                guard case .waiting = state else { return }
                state = .taken(commits.hold(request, lane: lane))
            }
        }

        /// Lets the request commit in its place (taking it first if it was not); returns once its
        /// outcome has been delivered to `deliver`. A second release does nothing.
        public func submit(deliver: @escaping @Sendable (Outcome) -> Void) async {
            await GroupCommit.delivered(deliver) { deliver in release(deliver: deliver) }
        }

        /// Lets the request commit in its place (taking it first if it was not), without waiting;
        /// `deliver` gets its outcome when its batch committed. False (and `deliver` is never called)
        /// when it was released already.
        @discardableResult
        public func release(deliver: @escaping @Sendable (Outcome) -> Void) -> Bool {
            take()
            let number = state.withLock { state -> UInt64? in
                guard case .taken(let number) = state else { return nil }
                state = .released
                return number
            }
            guard let number else { return false }
            commits.settle(number, with: deliver)
            return true
        }

        deinit {
            if case .taken(let number) = state.withLock({ $0 }) { commits.settle(number, with: nil) }
        }
    }

    /// Queues `request` held (not ready to commit) and returns its number.
    private func hold(_ request: Request, lane: ObjectIdentifier) -> UInt64 {
        queue.withLock { queue in
            let number = queue.take()
            queue.entries.append(Entry(number: number, request: request, lane: lane))
            return number
        }
    }

    /// Releases held place `number` with `deliver`, or gives it up when `deliver` is nil.
    private func settle(_ number: UInt64, with deliver: (@Sendable (Outcome) -> Void)?) {
        let start = queue.withLock { queue -> Bool in
            guard let index = queue.entries.firstIndex(where: { $0.number == number }) else { return false }
            if let deliver {
                queue.entries[index].deliver = deliver
            } else {
                queue.entries.remove(at: index)
            }
            return queue.startCommitting()
        }
        if start { Task { await drain() } }
    }

    /// Commits batches until nothing is ready.
    private func drain() async {
        while let batch = takeBatch() {
            let outcomes = await commit(batch.map { $0.request })
            for (index, entry) in batch.enumerated() {
                entry.deliver?(index < outcomes.count ? outcomes[index] : .failure(Missing()))
            }
        }
    }

    /// The next batch, or nil (and no longer committing) when nothing is ready: the released requests
    /// in queue order (at most ``maxBatch``), leaving out those of a lane behind one of its places
    /// still held. One pass over the queue.
    private func takeBatch() -> [Entry]? {
        queue.withLock { queue in
            var batch: [Entry] = []
            batch.reserveCapacity(min(maxBatch, queue.entries.count))
            var waiting: [Entry] = []
            var heldLanes: Set<ObjectIdentifier> = []
            for entry in queue.entries {
                let held = entry.deliver == nil || entry.lane.map(heldLanes.contains) == true
                if held || batch.count == maxBatch {
                    if held, let lane = entry.lane { heldLanes.insert(lane) }
                    waiting.append(entry)
                } else {
                    batch.append(entry)
                }
            }
            queue.entries = waiting
            guard !batch.isEmpty else {
                queue.committing = false
                return nil
            }
            return batch
        }
    }
}
