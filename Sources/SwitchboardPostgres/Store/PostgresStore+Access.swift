import PostgresNIO
import SwitchboardCore

extension PostgresStore {
    /// Runs `body` on a connection of the pool, each statement its own transaction (for reads).
    /// - Throws: what ``serviceError(_:)`` makes of the failure.
    public func read<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await withSession { try await body($0) }
        } catch {
            throw serviceError(error)
        }
    }

    /// Runs `body` in one transaction on a connection of the pool: committed when it returns, rolled
    /// back when it throws. Record the change log last (``PostgresChangeLog/record(_:domain:itemID:kind:logger:)``).
    /// - Throws: what ``serviceError(_:)`` makes of the failure.
    public func write<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await withSession { connection in
                try await connection.query("BEGIN", logger: logger)
                let result: Result
                do {
                    result = try await body(connection)
                } catch {
                    await rollBack(connection, after: error)
                    throw error
                }
                try await connection.query("COMMIT", logger: logger)
                return result
            }
        } catch {
            throw serviceError(error)
        }
    }

    /// Runs `body` on a connection of the pool; a connection whose session an error of `body` ended is
    /// closed before the pool gets it back. postgres-nio keeps such a connection until its socket
    /// closes, and a statement it is given in that window (after the server's FATAL error in the
    /// middle of a query) is never answered: without the close, the pool could lease it to the next
    /// request, which would hang.
    private func withSession<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            do {
                return try await body(connection)
            } catch {
                if endsSession(error) { try? await connection.close() }
                throw error
            }
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
            try? await connection.close()
        }
    }

    /// What a domain service throws for a failure of PostgreSQL (the error documented for every domain):
    ///
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
            if let state = error.serverInfo?[.sqlState], !state.hasPrefix("08"), !["57P01", "57P02", "57P03"].contains(state) {
                return ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: \(PostgresErrorText.cause(of: error))")
            }
            return unavailable(error)
        case is PostgresDecodingError:
            return ServiceError.serviceFailure(debugId: DebugID.make(), cause: "PostgreSQL: a stored row does not decode")
        case is ChannelError, is IOError, is NIOConnectionError, is NIOSSLError:
            return unavailable(error)
        default:
            // The pool's own errors (shut down, request cancelled) are of a module postgres-nio does not export.
            return String(reflecting: type(of: error)).hasSuffix(".ConnectionPoolError") ? unavailable(error) : error
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
