import Synchronization

/// Work a handler wants done once its answer is on its way to the peer: a subscription starts
/// delivering only after the client has its id, a send reports `sent` only after its `pending`.
final class AfterAnswer: Sendable {
    private let actions = Mutex<[@Sendable () -> Void]?>([])

    func add(_ action: @escaping @Sendable () -> Void) {
        let late = actions.withLock { actions -> Bool in
            guard actions != nil else { return true }
            actions?.append(action)
            return false
        }
        if late { action() }
    }

    /// Runs what was added, in order; anything added later runs at once.
    func run() {
        let ready = actions.withLock { actions in
            defer { actions = nil }
            return actions ?? []
        }
        for action in ready { action() }
    }
}

extension RequestContext {
    /// Runs `action` once this request's answer has been queued for the peer, ahead of anything the
    /// action sends (in a batch: once the batch's answer is). For a method registered as immediate,
    /// or a request sent as a notification, it runs at once.
    public func afterAnswer(_ action: @escaping @Sendable () -> Void) {
        guard let afterAnswerActions else { return action() }
        afterAnswerActions.add(action)
    }
}
