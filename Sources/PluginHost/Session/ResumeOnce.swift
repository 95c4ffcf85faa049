import Synchronization

/// Resumes a continuation at most once, whichever of its callers comes first (an event or a deadline),
/// then runs what was to be done after it.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>
    /// Actions for after the resume; nil once they ran.
    private let done = Mutex<[@Sendable () -> Void]?>([])

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func resume(_ value: Value) {
        let taken = continuation.withLock { current in
            defer { current = nil }
            return current
        }
        guard let taken else { return }
        taken.resume(returning: value)
        let actions = done.withLock { actions in
            defer { actions = nil }
            return actions ?? []
        }
        actions.forEach { $0() }
    }

    /// Runs `action` once it has resumed: now, if it has.
    func whenDone(_ action: @escaping @Sendable () -> Void) {
        let now = done.withLock { actions -> Bool in
            guard actions != nil else { return true }
            actions?.append(action)
            return false
        }
        if now { action() }
    }
}
