import GRDB
import GRDBSQLite

/// Lets a read stop when its request is cancelled: SQLite calls a connection's progress handler every
/// ``interval`` virtual-machine steps, on the thread running the statement, and a non-zero answer
/// interrupts it (`SQLITE_INTERRUPT`, the read fails and its request is answered `-32800`). A read runs
/// synchronously in its request's task (``AppDatabase/read(_:)``), so `Task.isCancelled` is that
/// request's; outside a task it is false and nothing changes.
///
/// Only on read-only connections: a write's cancellation is GRDB's (an async write's statements are
/// interrupted and its transaction rolled back), and a write that runs on in a cancelled task (the
/// database's first-use seeding, promised work) must not be cut by this.
enum CancellableReads {
    /// Steps between two looks; a look costs a few nanoseconds, a step tens.
    static let interval: Int32 = 1_000

    static func install(on db: Database) {
        sqlite3_progress_handler(db.sqliteConnection, interval, { _ in Task.isCancelled ? 1 : 0 }, nil)
    }
}
