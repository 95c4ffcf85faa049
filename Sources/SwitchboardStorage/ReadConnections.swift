import GRDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Read-only connections to one database file, lent to one synchronous read at a time: a read takes
/// an idle connection (or opens one when every connection is in use), runs on the calling thread with
/// it, and gives it back. So a read never waits for a connection that another task holds (waiting in
/// GRDB's shared reader pool from a thread a suspended task needs to finish can stop every thread),
/// and never hops to a reader queue and back.
///
/// A connection is not tied to a thread: request tasks run on whatever thread is free, and threads
/// come and go (Dispatch's worker threads end when idle), so one connection per thread that ever read
/// (each with its own page cache and descriptors) could only grow over a long run. Here the number
/// of connections open follows the number of reads running at once, which is the number of threads
/// reading at that moment (about the number of cores: Swift's cooperative pool); at most
/// ``idleLimit`` are kept between reads, the newest first, and one given back beyond that is closed.
/// The rest close with the database.
///
/// - Important: SQLite keeps a closed connection's file descriptors for the next open of the same
///   file while another connection of the process holds a lock on it (closing them would drop the
///   process's POSIX locks; the database's writer always holds one), so the descriptors open follow
///   the most reads ever at once, not the connections open now.
final class ReadConnections: Sendable {
    private struct State {
        /// Connections no read is using; the last one was given back most recently.
        var idle: [DatabaseQueue] = []
        /// Connections open, in use or idle.
        var open = 0
    }

    private let path: String
    /// The most idle connections kept between reads.
    let idleLimit: Int
    private let state = Mutex(State())

    /// The idle connections kept by default: one per core (a cooperative-pool thread each) and two
    /// for threads outside that pool (the database's lazy opening, a plugin's answer, Dispatch).
    static var defaultIdleLimit: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 2 }

    init(path: String, idleLimit: Int = ReadConnections.defaultIdleLimit) {
        self.path = path
        self.idleLimit = max(1, idleLimit)
    }

    /// Runs `body` in a read transaction on a connection no other read is using, on this thread.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let connection = try take()
        defer { giveBack(connection) }
        return try connection.read(body)
    }

    /// Runs `body` on a connection no other read is using, on this thread, outside a transaction: for
    /// a read of one statement, which SQLite runs on one snapshot of its own, so the `BEGIN` and `COMMIT`
    /// of ``read(_:)`` would only add two statements.
    func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
        let connection = try take()
        defer { giveBack(connection) }
        return try connection.unsafeRead(body)
    }

    /// Connections open now (in use or idle).
    var openCount: Int { state.withLock { $0.open } }

    /// Idle connections now.
    var idleCount: Int { state.withLock { $0.idle.count } }

    private func take() throws -> DatabaseQueue {
        let reused: DatabaseQueue? = state.withLock { state in
            if let connection = state.idle.popLast() { return connection }
            state.open += 1   // counted before opening, so the count never trails what is open
            return nil
        }
        if let reused { return reused }
        do {
            return try DatabaseQueue(path: DatabaseFile.sqliteName(path), configuration: AppDatabase.configuration(readOnly: true))
        } catch {
            state.withLock { $0.open -= 1 }
            throw error
        }
    }

    private func giveBack(_ connection: DatabaseQueue) {
        let surplus: DatabaseQueue? = state.withLock { state in
            guard state.idle.count >= idleLimit else {
                state.idle.append(connection)
                return nil
            }
            state.open -= 1
            return connection
        }
        // A surplus connection closes here, outside the lock, as its last reference goes.
        _ = surplus
    }
}
