import GRDB
import Synchronization
import SwitchboardCore

/// The writer of an ``AppDatabase``: given open, or opened on first use (a `DatabasePool` in WAL mode),
/// with the observation that posts the change signal after this process's commits.
///
/// Opening a pool writes (GRDB makes sure the `-wal` file is not empty, and closing the last
/// connection checkpoints it): a process that only reads must not, so a database whose schema and
/// demo data were found current opens its writer only when a write comes.
final class WriterSlot: Sendable {
    private struct Opened: Sendable {
        var writer: any DatabaseWriter
        /// Keeps the change signal posted while the writer lives.
        var observation: AnyDatabaseCancellable?
    }

    private let path: String
    private let signal: ChangeSignal?
    private let opened: Mutex<Opened?>

    /// A writer opened on the first call of ``writer()``.
    init(path: String, signal: ChangeSignal?) {
        self.path = path
        self.signal = signal
        opened = Mutex(nil)
    }

    /// A writer open already.
    init(opened writer: any DatabaseWriter, path: String, signal: ChangeSignal?) {
        self.path = path
        self.signal = signal
        opened = Mutex(Opened(writer: writer, observation: signal.map { AppDatabase.observeCommits(of: writer, path: path, signal: $0) }))
    }

    /// The writer, opening it now if needed. Throws the ``ServiceError`` of a failed opening.
    func writer() throws -> any DatabaseWriter {
        try opened.withLock { opened in
            if let opened { return opened.writer }
            do {
                let pool = try DatabasePool(path: DatabaseFile.sqliteName(path), configuration: AppDatabase.configuration(readOnly: false))
                opened = Opened(writer: pool, observation: signal.map { AppDatabase.observeCommits(of: pool, path: path, signal: $0) })
                return pool
            } catch let error as DatabaseError {
                throw AppDatabase.storageError(error, path: path)
            }
        }
    }
}
