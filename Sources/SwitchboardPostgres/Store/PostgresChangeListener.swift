import PostgresNIO
import SwitchboardCore
import Synchronization

/// One connection per host that `LISTEN`s to the domains' channels and turns each notification into a
/// wake-up (``ChangeSignal/post()``) of that domain's subscribers. A notification is only a hint: what a
/// subscription delivers comes from the change log since its state, so a coalesced, missed or spurious
/// notification loses and doubles nothing.
///
/// When the connection is lost the listener connects again, waiting 0.1 s, then twice as long each
/// failed try, at most 5 s. Notifications sent while it was away are gone, so after every (re)connect,
/// once its `LISTEN`s are in place, it posts every signal: subscribers read the log from their state
/// and catch up with what they missed.
///
/// ```swift
/// let listener = PostgresChangeListener(settings: settings, signals: ["chat": chatSignal], logger: logger)
/// let task = Task { await listener.run() }   // until cancelled
/// ```
public final class PostgresChangeListener: Sendable {
    /// What the listener reports as it goes (for the log, `host.status` and tests).
    public enum Event: Sendable, Equatable {
        /// Listening on every channel, on the server process `backendPID`; every signal was posted.
        case listening(backendPID: Int32)
        /// The connection failed or was lost; the next try comes after `retryMilliseconds`.
        case lost(cause: String, retryMilliseconds: Int)
    }

    public static let firstRetry: Duration = .milliseconds(100)
    public static let longestRetry: Duration = .seconds(5)

    private let settings: PostgresSettings
    private let signals: [String: ChangeSignal]
    private let logger: Logger
    private let continuation: AsyncStream<Event>.Continuation
    /// Every ``Event``, in order, for one reader.
    public let events: AsyncStream<Event>

    /// - Parameter signals: the signal to post per domain (`chat` for the channel `switchboard.chat`);
    ///   several domains may share one signal.
    public init(settings: PostgresSettings, signals: [String: ChangeSignal], logger: Logger) {
        self.settings = settings
        self.signals = signals
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Listens, reconnecting as needed, until the calling task is cancelled.
    public func run() async {
        var delay = Self.firstRetry
        while !Task.isCancelled {
            let cause: String
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try settings.connectionConfiguration(), id: 1, logger: logger)
                delay = Self.firstRetry
                cause = await listen(on: connection)
            } catch let error as PostgresConnectError {
                cause = error.cause
            } catch {
                cause = PostgresErrorText.cause(of: error)
            }
            guard !Task.isCancelled else { break }
            let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
            logger.warning("PostgreSQL change listener lost \(settings.serverName): \(cause); again in \(milliseconds) ms")
            continuation.yield(.lost(cause: cause, retryMilliseconds: milliseconds))
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, Self.longestRetry)
        }
        continuation.finish()
    }

    /// Listens on `connection` until it is lost (or the task cancelled); returns why it ended.
    private func listen(on connection: PostgresConnection) async -> String {
        let channels = signals.map { (PostgresChangeLog.channel(for: $0.key), $0.value) }
        let ready = ReadyCount()
        let result: String
        do {
            let pid = try await backendPID(of: connection)
            result = try await withThrowingTaskGroup(of: Void.self) { group in
                for (channel, signal) in channels {
                    group.addTask {
                        try await connection.listen(on: channel) { notifications in
                            // LISTEN is in place once this runs; the last channel to get there posts for all.
                            if ready.count.add(1, ordering: .sequentiallyConsistent).newValue == channels.count {
                                for (_, signal) in channels { signal.post() }
                                self.continuation.yield(.listening(backendPID: pid))
                            }
                            for try await _ in notifications { signal.post() }
                        }
                        throw PostgresListenerEnd.streamEnded
                    }
                }
                group.addTask {
                    try await withTaskCancellationHandler {
                        try await connection.closeFuture.get()
                    } onCancel: {
                        let closing: EventLoopFuture<Void> = connection.close()
                        _ = closing
                    }
                    throw PostgresListenerEnd.closed
                }
                defer { group.cancelAll() }
                try await group.next()
                return "the connection ended"
            }
        } catch PostgresListenerEnd.closed {
            result = "the connection was closed"
        } catch PostgresListenerEnd.streamEnded {
            result = "the notifications stopped"
        } catch {
            result = PostgresErrorText.cause(of: error)
        }
        try? await connection.close()
        return result
    }

    private func backendPID(of connection: PostgresConnection) async throws -> Int32 {
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: logger).decode(Int32.self) { return pid }
        return 0
    }
}

private enum PostgresListenerEnd: Error {
    case closed, streamEnded
}

/// How many channels' LISTENs are in place on the current connection.
private final class ReadyCount: Sendable {
    let count = Atomic<Int>(0)
}
