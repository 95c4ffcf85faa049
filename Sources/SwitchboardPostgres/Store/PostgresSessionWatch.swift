import PostgresNIO
import Synchronization

/// Tells the work leased on a pool connection that the connection has closed, so that work never
/// waits on it for good.
///
/// postgres-nio writes a statement to its channel without a promise, and once the channel has closed
/// (the server ended the session, between two statements or before the pool noticed) nothing is in the
/// pipeline to take it: the statement is dropped and its caller waits forever. A session the server
/// ends while a transaction is open, or a connection the pool leases just after its close, would hang
/// a write, and with it every send queued behind it.
///
/// Each connection gets one callback on its close (not one per lease: a pool connection lives for
/// many leases), which fails the lease that holds it then; the entry goes with the connection.
final class PostgresSessionWatch: Sendable {
    private struct Entry {
        /// Fails the current lease (nil between leases).
        var onClose: (@Sendable () -> Void)?
    }

    /// By the pool's connection id (unique within a pool; one pool per store).
    private let entries = Mutex<[PostgresConnection.ID: Entry]>([:])

    /// Calls `onClose` when `connection` closes while it is leased (at once when it has closed already),
    /// until ``end(_:)``.
    func begin(_ connection: PostgresConnection, onClose: @escaping @Sendable () -> Void) {
        let key = connection.id
        let isNew = entries.withLock { entries in
            defer { entries[key, default: Entry()].onClose = onClose }
            return entries[key] == nil
        }
        guard isNew else { return }
        connection.closeFuture.whenComplete { [weak self] _ in
            let onClose = self?.entries.withLock { $0.removeValue(forKey: key)?.onClose }
            onClose?()
        }
    }

    /// The lease is over: a later close fails nothing.
    func end(_ connection: PostgresConnection) {
        let key = connection.id
        entries.withLock { entries in
            if entries[key] != nil { entries[key]?.onClose = nil }
        }
    }
}

/// The connection closed while work ran on it: what it was waiting for will not come.
struct PostgresSessionEnded: Error, CustomStringConvertible {
    /// Set when the store closed it because the server does not answer (``PostgresWait``): why.
    var unanswered: String?

    var description: String {
        guard let unanswered else { return "the connection was closed (the server ended the session)" }
        return "the server went silent and does not answer (\(unanswered)); the connection was closed"
    }
}

/// The outcome of watched work: the first of its result and the connection's close resumes the
/// waiter; the later one is dropped.
final class WatchedOutcome<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = Mutex(continuation)
    }

    func resume(returning value: Value) {
        take()?.resume(returning: value)
    }

    func resume(throwing error: any Error) {
        take()?.resume(throwing: error)
    }

    private func take() -> CheckedContinuation<Value, any Error>? {
        continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
    }
}

/// The task a request's work runs in, to be cancelled from elsewhere (the caller's cancellation, a wait
/// given up): a cancellation that comes before the task is set cancels it as it is set.
final class CancellableWork: Sendable {
    private let state = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    func set(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
