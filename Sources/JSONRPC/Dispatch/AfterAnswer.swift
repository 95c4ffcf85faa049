import Synchronization

/// Work a handler leaves to run once its answer is on its way to the peer, so that what it sends
/// follows the answer: `chat.messageState` after `chat.send`'s `pending`, a subscription's first
/// event after the subscribe answer that names its id. And work to run at the moment the answer is
/// handed to the output, before the peer can read it (``RequestContext/asAnswerGoesOut(_:)``).
///
/// - Important: The request keeps its in-flight slot until this work has run, so a drain at end of
///   input waits for it. In a batch it runs once the batch's whole array is queued.
final class AfterAnswer: Sendable {
    private struct Work {
        var answering: [@Sendable () -> Void] = []
        var after: [@Sendable () async -> Void] = []
        /// Whether `after` counts as promised already (``promise()``).
        var promised = false
    }

    private let work = Mutex(Work())
    /// Where the work counts as promised while it runs, its answer being out (a host waits for it
    /// before it exits). Work whose answer never went out (parked for a client that does not read, or
    /// answered by a drain) promised nothing and is not waited for.
    private let promised: PromisedWork?

    init(promised: PromisedWork? = nil) {
        self.promised = promised
    }

    func add(_ item: @escaping @Sendable () async -> Void) {
        work.withLock { $0.after.append(item) }
    }

    func addAnswering(_ item: @escaping @Sendable () -> Void) {
        work.withLock { $0.answering.append(item) }
    }

    /// Runs, here and now, what waits for the answer to be handed to the output: called just before it is.
    func answerGoesOut() {
        let items = work.withLock { work in
            defer { work.answering = [] }
            return work.answering
        }
        for item in items { item() }
    }

    /// Counts what was added as promised (its answer is out), once; ``run()`` does it too. A batch
    /// promises all its members' work before running the first.
    func promise() {
        let count = work.withLock { work -> Int in
            guard !work.promised else { return 0 }
            work.promised = true
            return work.after.count
        }
        if count > 0 { promised?.begin(count) }
    }

    /// Runs what was added, in order, in a task of its own: a cancel that reached the request does
    /// not reach work that follows an answer already sent. Called once the answer is out.
    func run() async {
        promise()
        let items = work.withLock { work in
            defer { work.after = [] }
            return work.after
        }
        guard !items.isEmpty else { return }
        let promised = self.promised
        await Task.detached {
            for item in items {
                await item()
                promised?.end()
            }
        }.value
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
            let promised = connection.promisedWork
            promised.begin()
            Task {
                await work()
                promised.end()
            }
        }
    }

    /// Runs `work` as this request's answer (in a batch: the batch's array) is handed to the output,
    /// before the peer can read it: whatever the peer sends once it has read the answer is handled
    /// after `work`. Keep it short; it runs on the thread that sends the answer. It does not run when
    /// the answer never goes out (a drain answered the request itself); a request with no answer to
    /// wait for runs it at once.
    public func asAnswerGoesOut(_ work: @escaping @Sendable () -> Void) {
        if let afterAnswerActions {
            afterAnswerActions.addAnswering(work)
        } else {
            work()
        }
    }
}
