import Synchronization

/// Work a handler leaves to run once its answer has been handed to the output, so a notification
/// about the request (`chat.messageState` after `chat.send`) reaches the client after the answer.
///
/// - Important: The request keeps its in-flight slot until its follow-ups have run, so a drain at
///   the end of input waits for them. In a batch they wait until the batch's array has gone out
///   (``BatchSent``), whichever member completes it.
final class AnswerFollowUps: Sendable {
    /// The follow-ups of the request whose handler runs in this task.
    @TaskLocal static var current: AnswerFollowUps?

    private let work = Mutex<[@Sendable () async -> Void]>([])

    init() {}

    func add(_ item: @escaping @Sendable () async -> Void) {
        work.withLock { $0.append(item) }
    }

    var isEmpty: Bool { work.withLock { $0.isEmpty } }

    /// Runs every follow-up added so far, in order, in a task of their own: a cancel that reached
    /// the request does not reach them, since the answer they follow went out.
    func run() async {
        let items = work.withLock { items in
            defer { items = [] }
            return items
        }
        guard !items.isEmpty else { return }
        await Task.detached { for item in items { await item() } }.value
    }
}

/// Whether a batch's array has been handed to the output: members with follow-ups wait for it.
final class BatchSent: Sendable {
    private struct State {
        var sent = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    init() {}

    func markSent() {
        let waiters = state.withLock { state in
            state.sent = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let sent = state.withLock { state in
                if !state.sent { state.waiters.append(continuation) }
                return state.sent
            }
            if sent { continuation.resume() }
        }
    }
}

extension ReplyTarget {
    /// Records that the answer this target completed has been handed to the output: for a batch's
    /// last member, the array. Whoever sends a batch's array calls it.
    func markSent() {
        if case .batch(let collector, _) = self { collector.sent.markSent() }
    }
}

extension RequestContext {
    /// Runs `work` after this request's answer has been queued for output, so whatever it sends
    /// follows the answer. A method run on the input thread, or called as a notification, has no
    /// answer to wait for: `work` then runs at once, in a task of its own.
    public func afterAnswer(_ work: @escaping @Sendable () async -> Void) {
        if let followUps = AnswerFollowUps.current {
            followUps.add(work)
        } else {
            Task { await work() }
        }
    }
}
