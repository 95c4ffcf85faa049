import JSONRPC
import PostgresNIO
import Synchronization

/// One request's waits on the server (``PostgresStore``'s `withSession`): for a connection of the pool,
/// then for the work on it. Each `connect_timeout` that a wait goes on, it asks the store's probe
/// (``PostgresReachability``) whether the server answers at all, on the one shared ``DeadlineWatch``:
///
/// - the server answers → the wait goes on (a busy pool, a slow query), and is asked about again later;
/// - it does not → a connection still awaited is given up (``abandon``: the request fails); work under
///   way is cut only after a second probe, started after the first, does not answer either (as TCP's
///   `keepalives_count` does not give up on one lost probe): its connection is closed, which fails the
///   work (``PostgresSessionWatch``) with ``unreachableCause`` as the reason.
///
/// A probe speaks only for the time after it started: each one asked for started after the work's
/// lease or after the probe before it (``PostgresReachability/ask(since:_:)``).
///
/// - Important: the work's own connection is not watched: the answers it gets (each statement's end)
///   are no sign of life here, only the lease and each probe's start are. So work running past
///   `connect_timeout` is cut when the two probes then made in a row fail (new connections fail: the
///   postmaster frozen, new connections blocked, start-ups slower than `connect_timeout`) even while
///   its own session is well.
///
/// - Important: a lease that comes before the verdict is used: ``leased(_:)`` and the giving up are one
///   race, decided under the lock; a connection that comes after is given back unused.
final class PostgresWait: Sendable {
    private enum Phase {
        case leasing
        case working(PostgresConnection)
        case over
    }

    private struct State {
        var phase = Phase.leasing
        /// The watch's key of the next check, and the check's number (an answer to an older one is dropped).
        var timer: Int?
        var round = 0
        /// Why the wait closed the connection (the server does not answer), once it has.
        var unreachable: String?
        /// Probes in a row that found the server not answering while the work was under way.
        var strikes = 0
    }

    private let state = Mutex(State())
    private let reachability: PostgresReachability
    private let milliseconds: Int
    /// Fails the request whose connection the wait gave up, with why.
    private let abandon: @Sendable (String) -> Void

    init(reachability: PostgresReachability, connectTimeoutSeconds: Int, abandon: @escaping @Sendable (String) -> Void) {
        self.reachability = reachability
        milliseconds = connectTimeoutSeconds * 1000
        self.abandon = abandon
    }

    /// The lease is asked for: the first check after `connect_timeout`, or at once when the server did
    /// not answer the last probe (a request that comes while the server is down then fails on the next
    /// probe's verdict, not after a wait too).
    func start() {
        let delay = reachability.lastSaidUnreachable ? 0 : milliseconds
        state.withLock { schedule(&$0, in: delay, since: monotonicNanoseconds()) }
    }

    /// The pool gave `connection`: whether the request may use it (false when the wait gave it up
    /// first). The work's time is counted from now; a verdict asked for while the lease was awaited
    /// no longer acts (its check is an older round).
    func leased(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard case .leasing = state.phase else { return false }
            state.phase = .working(connection)
            state.strikes = 0
            schedule(&state, in: milliseconds, since: monotonicNanoseconds())
            return true
        }
    }

    /// The request's work is over (answered, failed, cancelled): no more checks, and no verdict acts
    /// on the connection from now on. Call it before the connection goes back to the pool.
    ///
    /// - Returns: whether the wait closed the connection (or is closing it): the caller waits for the
    ///   close before giving it back, so the pool never leases a connection a verdict is closing.
    @discardableResult
    func end() -> Bool {
        let (timer, closing): (Int?, Bool) = state.withLock { state in
            state.phase = .over
            defer { state.timer = nil }
            return (state.timer, state.unreachable != nil)
        }
        if let timer { DeadlineWatch.shared.cancel(timer) }
        return closing
    }

    /// Why the wait closed the work's connection, if it did: the probe's cause.
    var unreachableCause: String? {
        state.withLock { $0.unreachable }
    }

    /// A new round of checks, replacing the one before (under the lock; the watch never calls out
    /// under its own, so the two locks cannot wait on each other).
    private func schedule(_ state: inout State, in delay: Int, since: UInt64) {
        if case .over = state.phase { return }
        if let timer = state.timer { DeadlineWatch.shared.cancel(timer) }
        state.round += 1
        let round = state.round
        state.timer = DeadlineWatch.shared.schedule(in: delay) { [self] in check(round: round, since: since) }
    }

    /// On the watch's thread: asks the probe, and acts on its verdict when it comes.
    private func check(round: Int, since: UInt64) {
        let current = state.withLock { state in
            guard state.round == round else { return false }
            state.timer = nil
            return true
        }
        guard current else { return }
        reachability.ask(since: since) { [self] verdict, started in
            switch verdict {
            case .reachable:
                // Checked again later (by a probe that starts after this one), unless a newer round
                // (the lease came) has taken over.
                state.withLock { state in
                    guard state.round == round else { return }
                    state.strikes = 0
                    schedule(&state, in: milliseconds, since: started)
                }
            case .unreachable(let cause):
                act(round: round, cause: cause, probeStarted: started)
            }
        }
    }

    /// A probe that started at `probeStarted` found the server not answering: a wait for a lease gives
    /// up; work under way asks a second probe (started after that one) at once, and is cut when it
    /// does not answer either.
    private func act(round: Int, cause: String, probeStarted: UInt64) {
        enum Step { case none, abandon, close(PostgresConnection) }
        let step: Step = state.withLock { state in
            guard state.round == round else { return .none }
            switch state.phase {
            case .leasing:
                state.phase = .over
                return .abandon
            case .working(let connection):
                state.strikes += 1
                guard state.strikes >= 2 else {
                    schedule(&state, in: 0, since: probeStarted)
                    return .none
                }
                state.unreachable = cause
                return .close(connection)
            case .over:
                return .none
            }
        }
        switch step {
        case .none: break
        case .abandon: abandon(cause)
        case .close(let connection): PostgresReachability.close(connection)
        }
    }
}

/// The server did not answer a probe while a request waited for a connection (``PostgresWait``).
struct PostgresNoConnection: Error, CustomStringConvertible {
    var cause: String
    var description: String { "no connection of the pool, and the server does not answer: \(cause)" }
}
