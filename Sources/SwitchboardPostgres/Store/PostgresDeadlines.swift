import PostgresNIO
import Synchronization

/// The two waits of a piece of work on the pool that a server can make endless, and their bounds
/// (``PostgresStore``'s `withSession`): the lease of a connection, and the answer on it.
enum PostgresDeadlines {
    /// One lease's race between the pool and the `connect_timeout` timer: whichever comes first wins,
    /// so a connection leased just after the timer fired is given back unused, and work that has
    /// begun is never abandoned by the timer.
    final class Lease: Sendable {
        private enum State { case waiting, leased, expired }
        private let state = Mutex(State.waiting)

        /// True when the connection came first (the work may run).
        func take() -> Bool {
            state.withLock { state in
                guard state == .waiting else { return false }
                state = .leased
                return true
            }
        }

        /// True when the timer came first (the lease is given up).
        func expire() -> Bool {
            state.withLock { state in
                guard state == .waiting else { return false }
                state = .expired
                return true
            }
        }
    }

    /// `work`'s outcome, or ``PostgresNoAnswer`` when it has not ended within `seconds`: the connection
    /// is then closed, which fails a statement waiting on it (``PostgresSessionWatch``).
    static func answered<Result: Sendable>(within seconds: Int, closing connection: PostgresConnection,
                                           _ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let expired = Atomic<Bool>(false)
        let timer = Task {
            try await Task.sleep(for: .seconds(seconds))
            expired.store(true, ordering: .sequentiallyConsistent)
            try? await connection.close()
        }
        defer { timer.cancel() }
        do {
            return try await work()
        } catch {
            if expired.load(ordering: .sequentiallyConsistent) { throw PostgresNoAnswer(seconds: seconds) }
            throw error
        }
    }
}

/// No connection of the pool came within `connect_timeout`; `cause` says why, as well as can be told.
struct PostgresNoConnection: Error {
    var cause: String
}

/// The server did not answer a piece of work within ``PostgresSettings/answerTimeoutSeconds``.
struct PostgresNoAnswer: Error {
    var seconds: Int
}
