import Synchronization

/// Group commit: requests queued while a batch is being committed are committed together as the
/// next batch, so a burst of writes pays for one transaction per batch instead of one per request.
///
/// One batch commits at a time, in a task of its own; it takes everything queued when it starts (at
/// most ``maxBatch``). Nothing waits for a timer: a lone request commits at once, and requests only
/// gather while the one before them is being written.
///
/// ```swift
/// let queue = GroupCommit<Send, Stored> { batch in await service.store(batch) }
/// await queue.submit(send) { outcome in notify(outcome) }
/// ```
///
/// - Important: `commit` answers one outcome per request, in the batch's order (a request it gives
///   none gets ``Missing``). Outcomes are delivered in queue order: every `deliver` of a batch runs,
///   in order, before any of the next batch.
public final class GroupCommit<Request: Sendable, Success: Sendable>: Sendable {
    public typealias Outcome = Result<Success, any Error>

    /// The outcome of a request that `commit` gave no outcome (a bug in `commit`, never a hang).
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "the batch's commit gave no outcome for this request" }
    }

    /// What one queued request is waiting for.
    private struct Entry: Sendable {
        var request: Request
        var deliver: @Sendable (Outcome) -> Void
    }

    private struct Queue {
        var entries: [Entry] = []
        var committing = false
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
        await withCheckedContinuation { continuation in
            enqueue(request) { outcome in
                deliver(outcome)
                continuation.resume()
            }
        }
    }

    /// Queues `request` at once, without waiting; `deliver` gets its outcome when its batch committed.
    public func enqueue(_ request: Request, deliver: @escaping @Sendable (Outcome) -> Void) {
        let start = queue.withLock { queue in
            queue.entries.append(Entry(request: request, deliver: deliver))
            guard !queue.committing else { return false }
            queue.committing = true
            return true
        }
        if start { Task { await drain() } }
    }

    /// Commits batches until the queue is empty.
    private func drain() async {
        while let batch = takeBatch() {
            let outcomes = await commit(batch.map { $0.request })
            for (index, entry) in batch.enumerated() {
                entry.deliver(index < outcomes.count ? outcomes[index] : .failure(Missing()))
            }
        }
    }

    /// The next batch, or nil (and no longer committing) when nothing is queued.
    private func takeBatch() -> [Entry]? {
        queue.withLock { queue in
            guard !queue.entries.isEmpty else {
                queue.committing = false
                return nil
            }
            let count = min(maxBatch, queue.entries.count)
            defer { queue.entries.removeFirst(count) }
            return Array(queue.entries.prefix(count))
        }
    }
}
