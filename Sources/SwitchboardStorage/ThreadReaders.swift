import GRDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Read-only connections to one database file, one for each thread that reads: a synchronous read
/// runs on the calling thread with that thread's own connection, so it never waits for a connection
/// that another task holds (waiting in GRDB's shared reader pool from a thread a suspended task
/// needs to finish can stop every thread), and never hops to a reader queue and back.
///
/// A thread's connection is opened on its first read and closed when the database is; the threads
/// that read are few and long-lived (mostly those of Swift's cooperative pool, which request tasks
/// run on).
final class ThreadReaders: Sendable {
    private let path: String
    /// Each thread's connection, unretained; `opened` owns them.
    private let key: pthread_key_t
    private let opened = Mutex<[DatabaseQueue]>([])

    init(path: String) {
        self.path = path
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    deinit { pthread_key_delete(key) }

    /// Runs `body` in a read transaction on this thread's connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try connection().read(body)
    }

    private func connection() throws -> DatabaseQueue {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<DatabaseQueue>.fromOpaque(raw).takeUnretainedValue()
        }
        let connection = try DatabaseQueue(path: path, configuration: AppDatabase.configuration(readOnly: true))
        opened.withLock { $0.append(connection) }
        pthread_setspecific(key, Unmanaged.passUnretained(connection).toOpaque())
        return connection
    }
}
