import PostgresNIO
import Synchronization
import SwitchboardCore

/// A PostgreSQL database opened for the host: checked reachable, migrated, and served by postgres-nio's
/// connection pool (``client``).
///
/// ``open(_:migrations:logger:)`` first makes one connection of its own, so a server that is down, a
/// wrong password or a certificate that does not fit is one clear error at start (naming the server,
/// never the password) instead of a pool retrying in the background while requests wait. The
/// migrations run on that connection under the migrator's advisory lock.
public final class PostgresStore: Sendable {
    public let settings: PostgresSettings
    /// The pool; it runs until ``close()``.
    public let client: PostgresClient
    /// What this start migrated (empty lists when another host had done it).
    public let applied: PostgresMigrator.Applied
    /// The logger queries run with (the host's).
    public let logger: Logger
    private let runner: Task<Void, Never>
    /// Fails work on a leased connection when the connection closes (``PostgresSessionWatch``).
    let sessions = PostgresSessionWatch()
    /// The one probe of the server that long waits ask (``PostgresWait``).
    let reachability: PostgresReachability

    private init(settings: PostgresSettings, client: PostgresClient, applied: PostgresMigrator.Applied, logger: Logger) {
        self.settings = settings
        self.client = client
        self.applied = applied
        self.logger = logger
        reachability = PostgresReachability(settings: settings, logger: logger)
        runner = Task { await client.run() }
    }

    /// Connects, migrates `migrations` (the change log's first, then each domain's), and starts the pool.
    /// - Throws: ``PostgresStoreError``.
    public static func open(_ settings: PostgresSettings, migrations: [PostgresMigrations], logger: Logger) async throws(PostgresStoreError) -> PostgresStore {
        let connection = try await connect(settings, logger: logger)
        let applied: PostgresMigrator.Applied
        do {
            applied = try await PostgresMigrator.migrate([PostgresChangeLog.migrations] + migrations, on: connection, logger: logger)
        } catch {
            try? await connection.close()
            throw .migration(settings: settings.redactedDescription, error)
        }
        try? await connection.close()
        return PostgresStore(settings: settings, client: PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: logger), applied: applied, logger: logger)
    }

    /// Connects once and disconnects: whether the server can be reached with `settings` (the check a host
    /// makes at start, so a server that is down is one error then, not a storage error on every request).
    /// - Throws: ``PostgresStoreError/unreachable(_:)``.
    public static func checkReachable(_ settings: PostgresSettings, logger: Logger) async throws(PostgresStoreError) {
        let connection = try await connect(settings, logger: logger)
        try? await connection.close()
    }

    private static func connect(_ settings: PostgresSettings, logger: Logger) async throws(PostgresStoreError) -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(configuration: try settings.connectionConfiguration(), id: 0, logger: logger)
        } catch let error as PostgresConnectError {
            throw .unreachable(error)
        } catch {
            var cause = PostgresErrorText.cause(of: error)
            // A refusal for want of a password is a puzzle without the settings' notes (a password file not used, and why).
            if let refusal = error as? PSQLError, refusal.code == .authMechanismRequiresPassword {
                cause = ([cause] + settings.notes).joined(separator: "; ")
            }
            throw .unreachable(PostgresConnectError(settings, cause: cause))
        }
    }

    /// Stops the pool: its connections close, and waiting requests fail. Returns once the pool has
    /// stopped, or after `bound` if it has not, with a warning: postgres-nio's `run()` has been seen to
    /// miss its cancel (about once in ten thousand shutdowns, with a keep-alive under way), and whoever
    /// closes must not wait for ever. Returns whether the pool stopped.
    @discardableResult
    public func close(within bound: Duration = .seconds(15)) async -> Bool {
        runner.cancel()
        let stopped = await Self.ends(runner, within: bound)
        if !stopped {
            logger.warning("the PostgreSQL pool did not stop within \(bound) of its close; left to stop on its own",
                           metadata: ["server": "\(settings.redactedDescription)"])
        }
        return stopped
    }

    /// Whether `task` ends within `bound`; it is left running when it does not. Waits the same in a
    /// cancelled task (a test's closing store): the waiting is done by tasks of its own.
    static func ends(_ task: Task<Void, Never>, within bound: Duration) async -> Bool {
        let first = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        let resume: @Sendable (Bool) -> Void = { ended in first.withLock { waiter in defer { waiter = nil }; return waiter }?.resume(returning: ended) }
        return await withCheckedContinuation { continuation in
            first.withLock { $0 = continuation }
            let deadline = Task { try? await Task.sleep(for: bound); resume(false) }
            Task {
                await task.value
                resume(true)
                deadline.cancel()
            }
        }
    }
}

/// Why a PostgreSQL store could not be opened.
public enum PostgresStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreachable(PostgresConnectError)
    case migration(settings: String, PostgresMigrationError)

    public var description: String {
        switch self {
        case .unreachable(let error): "\(error)"
        case .migration(_, let error): "\(error)"
        }
    }

    /// The error domain services answer with (`-32050`): the storage is unavailable, the "path" being
    /// the URL without its password.
    public var serviceError: ServiceError {
        switch self {
        case .unreachable(let error): error.serviceError
        case .migration(let settings, let error): .storageUnavailable(path: settings, cause: "\(error)")
        }
    }
}
