import JSONRPC
import Logging
import PostgresNIO
import Synchronization

/// Whether the server answers at all, asked by the store's waits that have gone on for long (a lease
/// not given within `connect_timeout`; work under way `connect_timeout` after its lease, whatever its
/// own connection has heard since: its answers are not watched): one probe for the whole store at a
/// time, a fresh connection, its start-up bounded by `connect_timeout`; every wait asking meanwhile
/// gets its verdict.
///
/// A long wait alone is not death: a busy pool gives no lease and a slow query sends nothing until it
/// ends, while the server is well. Only the probe tells that apart from a server that is down (the
/// connection refused), frozen or cut off by the network (no start-up answer within `connect_timeout`).
///
/// - Important: a verdict answers only the waits whose last sign of life (a lease, a probe's start: not
///   an answer on the work's own connection) came before its probe *started*
///   (``ask(since:_:)``); a later wait gets a new probe. So a wait never acts on what the server was
///   before it began, nor on a probe that was already under way at its last sign of life.
final class PostgresReachability: Sendable {
    enum Verdict: Sendable, Equatable {
        /// The server answered (it completed a start-up, or sent an error of its own: it is up, only busy or refusing).
        case reachable
        /// It did not: why, for the answer (`connection refused (…)`, `no answer within 10 s (connect_timeout)`).
        case unreachable(String)
    }

    private typealias Waiter = @Sendable (Verdict, UInt64) -> Void

    private struct Probe {
        var id: Int
        /// When it started (monotonic nanoseconds): it speaks only for waits whose last sign of life came before.
        var started: UInt64
        var waiters: [Waiter]
    }

    private struct State {
        var probe: Probe?
        /// Waits that asked while a probe started before their last sign of life was in flight: the next probe's.
        var queued: [Waiter] = []
        var probes = 0
        /// The last probe's verdict and when that probe started (monotonic nanoseconds).
        var last: (verdict: Verdict, started: UInt64)?
    }

    private let settings: PostgresSettings
    private let logger: Logger
    /// The probe's connection settings, built once for the store (a TLS context reads its CA file): or why they cannot be.
    private let configuration: Result<PostgresConnection.Configuration, PostgresConnectError>
    private let state = Mutex(State())

    init(settings: PostgresSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        configuration = Result { () throws(PostgresConnectError) in try settings.connectionConfiguration() }
    }

    /// Whether the last probe found the server not answering.
    var lastSaidUnreachable: Bool { lastUnreachableCause != nil }

    /// Why the last probe found the server not answering, if it did.
    var lastUnreachableCause: String? {
        state.withLock { state in
            if case .unreachable(let cause)? = state.last?.verdict { return cause }
            return nil
        }
    }

    /// Calls `answer` with the verdict of a probe that *started* after `since` (monotonic nanoseconds:
    /// the wait's last sign of life, or the start of the probe whose verdict it had last), and when that
    /// probe started: the last probe's when it started that late, else the one in flight's when it did,
    /// else a new one's (started at once, or as soon as the one in flight ends). A probe that started
    /// before `since` and ended after says nothing of what came since, so it never answers. `answer`
    /// runs on the thread that ends the probe (an event loop, the watch's, or the caller's): it must not block.
    func ask(since: UInt64, _ answer: @escaping @Sendable (Verdict, UInt64) -> Void) {
        enum Step { case known(Verdict, UInt64), waiting, start(Int) }
        let step: Step = state.withLock { state in
            if let last = state.last, last.started > since { return .known(last.verdict, last.started) }
            if let probe = state.probe {
                if probe.started > since { state.probe?.waiters.append(answer) } else { state.queued.append(answer) }
                return .waiting
            }
            return .start(Self.begin(&state, waiters: [answer]))
        }
        switch step {
        case .known(let verdict, let started): answer(verdict, started)
        case .waiting: break
        case .start(let id): startProbe(id)
        }
    }

    /// A new probe in `state`, for `waiters`: its id.
    private static func begin(_ state: inout State, waiters: [Waiter]) -> Int {
        state.probes += 1
        state.probe = Probe(id: state.probes, started: monotonicNanoseconds(), waiters: waiters)
        return state.probes
    }

    /// One probe: a connection of its own, the start-up completed (the server accepted it, a backend
    /// authenticated it and said it is ready for a query: that is an answer), then closed.
    ///
    /// The connection is made with postgres-nio's future-based `connect` on one of its event loops, and its
    /// outcome handled there: no task of the cooperative pool takes part, so a pool starved by CPU-bound
    /// requests cannot delay a well server's answer past the deadline below (a `Task` here did, on two
    /// busy cores). postgres-nio bounds the connection and its start-up by `connect_timeout`. A `SELECT 1`
    /// after it would add a wait postgres-nio does not bound. The watch's deadline, at three
    /// `connect_timeout`s, only makes sure a probe that somehow never ends cannot hold the waits.
    private func startProbe(_ id: Int) {
        let seconds = settings.connectTimeoutSeconds
        let deadline = DeadlineWatch.shared.schedule(in: 3 * seconds * 1000) { [self] in
            finish(id, .unreachable("no answer within \(3 * seconds) s"))
        }
        let configuration: PostgresConnection.Configuration
        switch self.configuration {
        case .success(let built): configuration = built
        case .failure(let error):
            DeadlineWatch.shared.cancel(deadline)
            finish(id, Self.verdict(after: error))
            return
        }
        let eventLoop = PostgresConnection.defaultEventLoopGroup.any()
        PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 0, logger: logger).whenComplete { [self] outcome in
            let verdict: Verdict
            switch outcome {
            case .success(let connection):
                Self.close(connection)
                verdict = .reachable
            case .failure(let error):
                verdict = Self.verdict(after: error)
            }
            DeadlineWatch.shared.cancel(deadline)
            finish(id, verdict)
        }
    }

    /// Closes `connection` without waiting: the socket closes, and what waits on it fails.
    static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        _ = closing
    }

    /// The probe's verdict on a connection attempt that failed with `error`: the server answered when
    /// it sent an error of its own (``isAnswer(sqlState:)``) or took part in the start-up far enough to
    /// refuse it (``isAnswer(code:)``); otherwise it did not (refused, reset, no answer in time).
    static func verdict(after error: any Error) -> Verdict {
        if let error = error as? PSQLError {
            if let sqlState = error.serverInfo?[.sqlState] {
                if isAnswer(sqlState: sqlState) { return .reachable }
            } else if isAnswer(code: error.code) {
                return .reachable
            }
        }
        return .unreachable(PostgresErrorText.cause(of: error))
    }

    /// Whether an error the server sent during a start-up is an answer: it is (a wrong password, too
    /// many clients, and 57P03 `cannot_connect_now`: starting up, shutting down, a standby not yet
    /// accepting connections: the server is there, only not taking new sessions now), unless it says
    /// the backend itself was ended (57P01 `admin_shutdown`, 57P02 `crash_shutdown`).
    static func isAnswer(sqlState: String) -> Bool {
        !["57P01", "57P02"].contains(sqlState)
    }

    /// Whether a start-up that failed with `code` and no SQLSTATE got an answer: it did when the server
    /// refused TLS (`sslUnsupported`) or asked for a way of authenticating the host cannot give (a
    /// password it has not, a mechanism it does not know, a SASL exchange that failed): the server read
    /// the start-up and replied. A well server that the host cannot use is found out by the pool's own
    /// connection attempts, not taken for a silent one.
    static func isAnswer(code: PSQLError.Code) -> Bool {
        [.sslUnsupported, .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError].contains(code)
    }

    /// The first of the probe's outcome and its deadline answers; the other is dropped. Waits queued
    /// behind it get a new probe.
    private func finish(_ id: Int, _ verdict: Verdict) {
        let ended: (probe: Probe, before: Verdict?, next: Int?)? = state.withLock { state in
            guard let probe = state.probe, probe.id == id else { return nil }
            let before = state.last?.verdict
            state.last = (verdict, probe.started)
            state.probe = nil
            guard !state.queued.isEmpty else { return (probe, before, nil) }
            let queued = state.queued
            state.queued = []
            return (probe, before, Self.begin(&state, waiters: queued))
        }
        guard let (probe, before, next) = ended else { return }
        // Logged when the verdict changes, not for every probe while the server is down.
        switch (verdict, before) {
        case (.unreachable(let cause), .reachable?), (.unreachable(let cause), nil):
            logger.warning("PostgreSQL at \(settings.serverName) does not answer; requests waiting on it fail: \(cause)")
        case (.reachable, .unreachable?):
            logger.notice("PostgreSQL at \(settings.serverName) answers again")
        default:
            break
        }
        if let next { startProbe(next) }
        for waiter in probe.waiters { waiter(verdict, probe.started) }
    }
}
