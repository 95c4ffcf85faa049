import PostgresNIO
import SwitchboardCore
import Synchronization

extension PostgresStore {
    /// Runs `body` on a connection of the pool, each statement its own transaction (for reads).
    /// - Throws: what ``serviceError(_:)`` makes of the failure.
    public func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await withSession(body)
        } catch {
            throw serviceError(error)
        }
    }

    /// Runs `body` in one transaction on a connection of the pool: committed when it returns, rolled
    /// back when it throws. Record the change log last (``PostgresChangeLog/record(_:domain:itemID:kind:logger:)``).
    /// - Throws: what ``serviceError(_:)`` makes of the failure; when the session ended after the
    ///   `COMMIT` was sent, ``ServiceError/commitUnknown(path:cause:)``, whose cause says the write may have been committed
    ///   (``writeReportingCommit(_:)`` tells that case apart).
    public func write<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await writeReportingCommit(body)
        } catch let unknown as PostgresCommitUnknown {
            guard case .storageUnavailable(let path, let cause) = unknown.error else { throw unknown.error }
            throw ServiceError.commitUnknown(path: path, cause: cause + "; the COMMIT had been sent, so the write may have been committed")
        }
    }

    /// ``write(_:)``, except that a write whose session ended (or whose connection broke) after its
    /// `COMMIT` was sent throws ``PostgresCommitUnknown``: the server may have committed it before
    /// the answer was lost, and only a later read can tell.
    public func writeReportingCommit<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let commitSent = Atomic<Bool>(false)
        do {
            return try await withSession { connection in
                try await connection.query("BEGIN", logger: self.logger)
                let result: Result
                do {
                    result = try await body(connection)
                } catch {
                    await self.rollBack(connection, after: error)
                    throw error
                }
                commitSent.store(true, ordering: .sequentiallyConsistent)
                try await connection.query("COMMIT", logger: self.logger)
                return result
            }
        } catch {
            // A role that may read but not write: a write's refusal for want of privilege is read-only's.
            if Self.sqlState(of: error) == "42501" {
                throw ServiceError.storageReadOnly(path: settings.redactedDescription,
                                                   cause: "PostgreSQL at \(settings.serverName): \(PostgresErrorText.cause(of: error)); the role may not write here")
            }
            let failure = serviceError(error)
            if commitSent.load(ordering: .sequentiallyConsistent), let unavailable = failure as? ServiceError,
               case .storageUnavailable = unavailable {
                throw PostgresCommitUnknown(error: unavailable)
            }
            throw failure
        }
    }

    /// Runs `body` on a connection of the pool; a connection whose session an error of `body` ended is
    /// closed before the pool gets it back. postgres-nio keeps such a connection until its socket
    /// closes, and a statement it is given in that window (after the server's FATAL error in the
    /// middle of a query) is never answered: without the close, the pool could lease it to the next
    /// request, which would hang. A statement given to a connection whose socket has closed is dropped
    /// unanswered too, so `body` runs watched (``PostgresSessionWatch``): the close fails it.
    ///
    /// Neither wait is endless while the server is down, frozen or cut off (``PostgresWait``): the lease
    /// and the work run in a task of their own (cancelled with the caller), and the caller is answered
    /// by whichever comes first: their outcome, or the verdict that the server does not answer while no
    /// connection has come yet (``PostgresNoConnection``). Work under way on a server that does not
    /// answer has its connection closed, which the watch turns into its failure.
    private func withSession<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let work = CancellableWork()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                let outcome = WatchedOutcome(continuation)
                let wait = PostgresWait(reachability: reachability, connectTimeoutSeconds: settings.connectTimeoutSeconds) { cause in
                    outcome.resume(throwing: PostgresNoConnection(cause: cause))
                    work.cancel()
                }
                wait.start()
                let task = Task {
                    do {
                        outcome.resume(returning: try await self.client.withConnection { connection in
                            // Given up first: back to the pool unused.
                            guard wait.leased(connection) else { throw CancellationError() }
                            defer { self.sessions.end(connection) }
                            // The work phase ends here, before the connection goes back to the pool: a
                            // verdict that comes later must not close a connection another request holds.
                            // One that came first has its close awaited here.
                            let result: Result
                            do {
                                result = try await self.watched(connection, wait, body)
                            } catch {
                                let closing = wait.end()
                                if closing || self.endsSession(error) { try? await connection.close() }
                                throw error
                            }
                            if wait.end() { try? await connection.close() }
                            return result
                        })
                    } catch {
                        outcome.resume(throwing: error)
                    }
                    // No lease came (the pool failed, the request was cancelled or given up): no more checks.
                    wait.end()
                }
                work.set(task)
            }
        } onCancel: {
            work.cancel()
        }
    }

    /// `body`'s outcome on `connection`, or ``PostgresSessionEnded`` as soon as the connection closes
    /// first (naming the server's silence when `wait` closed it). `body` runs in a task of its own
    /// (cancelled with the caller): a statement postgres-nio dropped leaves it waiting for good, and it
    /// is then left behind, holding only what it captured.
    private func watched<Result: Sendable>(_ connection: PostgresConnection, _ wait: PostgresWait,
                                           _ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let work = CancellableWork()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                let outcome = WatchedOutcome(continuation)
                sessions.begin(connection) { outcome.resume(throwing: PostgresSessionEnded(unanswered: wait.unreachableCause)) }
                let task = Task {
                    do {
                        outcome.resume(returning: try await body(connection))
                    } catch {
                        // A statement the close failed fails as the close's reason.
                        outcome.resume(throwing: wait.unreachableCause.map { PostgresSessionEnded(unanswered: $0) } ?? error)
                    }
                }
                work.set(task)
            }
        } onCancel: {
            work.cancel()
        }
    }

    /// Whether `error` means the session is gone (the server ended it, the connection broke).
    private func endsSession(_ error: any Error) -> Bool {
        if case .storageUnavailable? = serviceError(error) as? ServiceError { return true }
        return false
    }

    /// Rolls back the transaction `error` ended, unless the error ended the session: a session the
    /// server ended (a restart, `pg_terminate_backend`) or whose connection broke has no transaction
    /// left, and postgres-nio never answers a statement sent on a connection after the server's FATAL
    /// error in the middle of a query (the statement waits for a ready-for-query that never comes), so
    /// a `ROLLBACK` there would hang the write, and with it every send queued behind it. A `ROLLBACK`
    /// that fails closes the connection (its session's state is unknown); the write throws `body`'s error.
    private func rollBack(_ connection: PostgresConnection, after error: any Error) async {
        guard !endsSession(error) else { return }
        do {
            try await connection.query("ROLLBACK", logger: logger)
        } catch {
            // The write throws `error`, not the close's storage error: the watch lets go first.
            sessions.end(connection)
            try? await connection.close()
        }
    }

    /// What a domain service throws for a failure of PostgreSQL (the error documented for every domain):
    ///
    /// - a write refused as read-only (SQLSTATE 25006: a standby, `default_transaction_read_only`; and in
    ///   ``writeReportingCommit(_:)`` 42501, no privilege) → ``ServiceError/storageReadOnly(path:cause:)``
    ///   (-32051, as SQLite's);
    /// - the server unreachable, the connection lost, the pool closed, the server shutting down (SQLSTATE
    ///   class 08, 57P01–57P03) → ``ServiceError/storageUnavailable(path:cause:)`` with the URL without its
    ///   password and the server named; in a write, nothing was committed unless the commit itself was
    ///   under way;
    /// - any other error of the server, or a row that does not decode →
    ///   ``ServiceError/serviceFailure(debugId:cause:)`` (the cause is logged by the method layer, not shown);
    /// - anything else the body threw itself (a ``ServiceError``, a cancellation, a domain's own refusal)
    ///   passes through as it is.
    public func serviceError(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return serviceError(inner) }
            return ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: the transaction failed")
        case let error as PSQLError:
            // A read-only transaction (a standby, default_transaction_read_only) or a role without the right to write.
            if error.serverInfo?[.sqlState] == "25006" {
                return ServiceError.storageReadOnly(path: settings.redactedDescription,
                                                    cause: "PostgreSQL at \(settings.serverName): \(PostgresErrorText.cause(of: error)); reads still work")
            }
            if let state = error.serverInfo?[.sqlState], !state.hasPrefix("08"), !["57P01", "57P02", "57P03"].contains(state) {
                return ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: \(PostgresErrorText.cause(of: error))")
            }
            return unavailable(error)
        case is PostgresDecodingError:
            return ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: a stored row does not decode")
        case is ChannelError, is IOError, is NIOConnectionError, is NIOSSLError, is PostgresSessionEnded, is PostgresNoConnection:
            return unavailable(error)
        default:
            // The pool's own errors (shut down, request cancelled) are of a module postgres-nio does not export.
            guard String(reflecting: type(of: error)).hasSuffix(".ConnectionPoolError") else { return error }
            // After a minute of failed connection attempts the pool fails every request at once, until one succeeds.
            if "\(error)".contains("CircuitBreakerTripped") {
                let cause = "no connection of the pool: its attempts have failed for a minute"
                    + (reachability.lastUnreachableCause.map { ", and the server does not answer: \($0)" } ?? "")
                return ServiceError.storageUnavailable(path: settings.redactedDescription, cause: "PostgreSQL at \(settings.serverName): \(cause)")
            }
            return unavailable(error)
        }
    }

    private func unavailable(_ error: any Error) -> ServiceError {
        .storageUnavailable(path: settings.redactedDescription, cause: "PostgreSQL at \(settings.serverName): \(PostgresErrorText.cause(of: error))")
    }

    /// The SQLSTATE of an error the server sent (`23505` for a unique violation), `nil` for any other.
    public static func sqlState(of error: any Error) -> String? {
        switch error {
        case let error as PSQLError: error.serverInfo?[.sqlState]
        case let error as PostgresTransactionError: error.closureError.flatMap { sqlState(of: $0) }
        default: nil
        }
    }
}
