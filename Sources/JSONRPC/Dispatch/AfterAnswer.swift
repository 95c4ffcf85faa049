import Synchronization

/// Work a handler leaves to run once its answer is on its way to the peer, so that what it sends
/// follows the answer: `chat.messageState` after `chat.send`'s `pending`, a subscription's first
/// event after the subscribe answer that names its id.
///
/// - Important: The request keeps its in-flight slot until this work has run, so a drain at end of
///   input waits for it. In a batch it runs once the batch's whole array is queued.
final class AfterAnswer: Sendable {
    private let work = Mutex<[@Sendable () async -> Void]>([])

    func add(_ item: @escaping @Sendable () async -> Void) {
        work.withLock { $0.append(item) }
    }

    /// Runs what was added, in order, in a task of its own: a cancel that reached the request does
    /// not reach work that follows an answer already sent.
    func run() async {
        let items = work.withLock { items in
            defer { items = [] }
            return items
        }
        guard !items.isEmpty else { return }
        await Task.detached { for item in items { await item() } }.value
    }
}

extension RequestContext {
    /// Runs `work` once this request's answer has been queued for the peer, ahead of anything `work`
    /// sends (in a batch: once the batch's answer is). A method registered as immediate, or a request
    /// sent as a notification, has no answer to wait for: `work` then runs at once, in a task.
    public func afterAnswer(_ work: @escaping @Sendable () async -> Void) {
        if let afterAnswerActions {
            afterAnswerActions.add(work)
        } else {
            Task { await work() }
        }
    }
}
