import GRDB
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore

/// The one SQLite database of the host, through GRDB: WAL mode on disk, named migrations that each
/// domain contributes, and the change log they all share.
///
/// ```swift
/// let database = try AppDatabase(path: "/tmp/switchboard.sqlite", migrations: FeedStore.migrations)
/// let total = try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") }
/// ```
///
/// - Important: Opening is safe for any number of processes at once: the first open, migration and
///   `prepare` (seeding) run under an exclusive lock on `PATH.lock` (``SetupLock``). For as long as it
///   lives, an `AppDatabase` on a file holds a shared lock on `PATH.open.lock` (``OpenLock``), which
///   a reset (`reset: true`) must take exclusively before it deletes the file. Every failure is a
///   ``ServiceError`` naming the file and the cause, but a reset's ``DatabaseInUse``.
public struct AppDatabase: Sendable {
    /// Reads and writes; a `DatabasePool` (WAL) on disk, a `DatabaseQueue` in memory or read-only.
    /// A database opened for reading first (see `current` in ``init(path:migrations:signal:current:reset:prepare:waiting:)``)
    /// opens it here, on the first use: a process that only reads never opens it, so never writes.
    public var writer: any DatabaseWriter {
        get throws { try writers.writer() }
    }

    /// The path given, `:memory:` for a throwaway database.
    public let path: String

    /// Why the database cannot be written (a read-only file or folder), or `nil` when it can.
    public let readOnlyCause: String?

    public var isReadOnly: Bool { readOnlyCause != nil }

    /// The read-only connections ``read(_:)`` borrows, one per read running (a `DatabasePool` only).
    let readers: ReadConnections?

    private let writers: WriterSlot

    /// Says that this process has the file open (`nil` in memory, or where there is no lock file to take).
    private let openLock: OpenLock?

    /// Where ``write(_:)``s wait their turn, each free to go at its cancel.
    private let writeGate = WriteGate()

    /// Opens (creating if needed) the database at `path` and applies every migration not yet applied.
    ///
    /// - Parameters:
    ///   - signal: posted after every commit of this process that wrote the change log
    ///     (``signalChanges(to:)``), from the moment the writer opens.
    ///   - current: says, from one read, that `prepare` has nothing to do (the demo data is there). When it
    ///     does and every migration is applied, the database opens for reading only: no setup lock, no
    ///     writer until the first write. Without it, opening always takes the setup lock and the writer.
    ///   - reset: deletes the file (and its `-wal` and `-shm`) under the setup lock before opening it, for
    ///     `seed --reset`: only a switchboard database (``checkDeletable(_:)``), and only while no other
    ///     `AppDatabase` in any process has it open — ``DatabaseInUse`` otherwise, with nothing touched.
    ///     Openers arriving meanwhile wait until this one is gone.
    ///   - prepare: runs under the setup lock once the schema is current (seeding).
    ///   - waiting: called when another process holds the setup lock, or is resetting the file, and this
    ///     one waits for it.
    /// - Throws: ``ServiceError/storageUnavailable(path:cause:)`` for a database a newer switchboard migrated
    ///   (it has migrations this one does not know), and for every storage failure; ``DatabaseInUse``.
    public init(path: String, migrations: [DatabaseMigration], signal: ChangeSignal? = nil,
                current: ((Database) throws -> Bool)? = nil, reset: Bool = false,
                prepare: (AppDatabase) throws -> Void = { _ in }, waiting: () -> Void = {}) throws {
        self.path = path
        let migrator = Self.migrator(migrations)
        if path == ":memory:" {
            writers = try WriterSlot(opened: DatabaseQueue(configuration: Self.configuration(readOnly: false)), path: path, signal: signal)
            readOnlyCause = nil
            readers = nil
            openLock = nil
            try Self.migrate(writer, migrator)
            try prepare(self)
            return
        }
        // Taken before anything is read, so what follows reads the file a reset left, never one it is replacing.
        // The lock file is made only further on, once the file is known to be ours (or new) and writable.
        var openLock: OpenLock?
        if reset {
            _ = try DatabaseFile.access(path)
            try Self.checkDeletable(path)
            openLock = try OpenLock.exclusive(for: path)
        } else {
            openLock = try OpenLock.shared(for: path, creating: false, waiting: waiting)
        }
        if let current, !reset, openLock != nil, try DatabaseFile.access(path) == .readWrite, DatabaseFile.hasContent(path) {
            let readers = ReadConnections(path: path)
            if try Self.isCurrent(readers, migrator, current, path: path) {
                writers = WriterSlot(path: path, signal: signal)
                readOnlyCause = nil
                self.readers = readers
                self.openLock = openLock
                return
            }
        }
        let writable = try DatabaseFile.access(path) == .readWrite
        if writable { try Self.checkOwnershipBeforeWriting(path) }
        if openLock == nil, writable {
            openLock = try OpenLock.shared(for: path, creating: true, waiting: waiting)
        }
        self.openLock = openLock
        let lock = writable ? try SetupLock.acquire(for: path, waiting: waiting) : nil
        if reset { DatabaseFile.remove(path) }
        let access = try DatabaseFile.access(path)
        do {
            switch access {
            case .readWrite:
                writers = WriterSlot(path: path, signal: signal)
                readOnlyCause = nil
                readers = ReadConnections(path: path)
                try Self.checkOwnership(writer, path: path)
                try Self.checkNotNewer(writer, migrator, path: path)
                try Self.migrate(writer, migrator)
            case .readOnly(let cause):
                let queue: DatabaseQueue
                do {
                    // GRDB's opening reads the schema: the first read.
                    queue = try DatabaseQueue(path: DatabaseFile.readOnlyName(path), configuration: Self.configuration(readOnly: true))
                    try Self.checkOwnership(queue, path: path)
                } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN {
                    // SQLite reads a WAL database through PATH-shm, which it could not make here.
                    throw ServiceError.storageUnavailable(path: path, cause: "cannot be read here: SQLite needs \(path)-shm beside it, "
                        + "and \(cause); open it once where it can be written, or make the file read-only too (chmod a-w) to read it as it is")
                }
                writers = WriterSlot(opened: queue, path: path, signal: nil)
                readOnlyCause = cause
                readers = nil
                try Self.checkNotNewer(writer, migrator, path: path)
                guard try writer.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                    throw ServiceError.storageUnavailable(
                        path: path, cause: "is read-only (\(cause)) and was made by an older switchboard; open it writable once to update it")
                }
            }
            try prepare(self)
        } catch let error as DatabaseError {
            throw Self.storageError(error, path: path)
        }
        _ = consume lock
    }

    /// True when every migration is applied and `current` says the rest is there, read in one read
    /// transaction on a read-only connection; false when setting up is needed (or the read failed: the
    /// full opening then says why). Throws when a newer switchboard migrated the database.
    private static func isCurrent(_ readers: ReadConnections, _ migrator: DatabaseMigrator,
                                  _ current: (Database) throws -> Bool, path: String) throws -> Bool {
        do {
            return try readers.read { db in
                let applied = try migrator.appliedIdentifiers(db)
                let known = Set(migrator.migrations)
                guard applied.isSubset(of: known) else { throw newer(path) }
                return try applied.count == known.count && current(db)
            }
        } catch is DatabaseError {
            return false
        }
    }

    /// Refuses a database migrated by a newer switchboard: one with migrations this one does not know.
    static func checkNotNewer(_ reader: any DatabaseReader, _ migrator: DatabaseMigrator, path: String) throws {
        guard try reader.read({ db in try migrator.hasBeenSuperseded(db) }) else { return }
        throw newer(path)
    }

    static func newer(_ path: String) -> ServiceError {
        .storageUnavailable(path: path, cause: "was made by a newer switchboard (its schema has steps this one does not know); use that version")
    }

    static func configuration(readOnly: Bool, busy: BusyWait = BusyWait()) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        // Another host process (an editor and a script) may be writing: wait for it (10 s), do not
        // fail — unless the request waiting is cancelled.
        configuration.busyMode = busy.mode
        if readOnly {
            configuration.prepareDatabase { db in CancellableReads.install(on: db) }
        } else {
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
        return configuration
    }

    static func migrator(_ migrations: [DatabaseMigration]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in [ChangeLog.migration, ChangeLog.floorMigration] + migrations {
            migrator.registerMigration(migration.name, migrate: migration.apply)
        }
        return migrator
    }

    static func migrate(_ writer: any DatabaseWriter, _ migrator: DatabaseMigrator) throws {
        // No pruning here: ChangeLog.record prunes as the log grows.
        try migrator.migrate(writer)
    }

    /// Refuses another program's database before anything writes to it or beside it: opening the
    /// writer switches a file to WAL, and the setup lock makes `PATH.lock`. Read on a read-only connection.
    /// GRDB's `grdb_migrations` alone is not counted: another switchboard setting the file up makes it
    /// (in a statement of its own) before the change log; the check under the setup lock decides then.
    static func checkOwnershipBeforeWriting(_ path: String) throws {
        guard DatabaseFile.hasContent(path) else { return }
        do {
            try checkOwnership(DatabaseQueue(path: DatabaseFile.sqliteName(path), configuration: configuration(readOnly: true)), path: path,
                               ignoring: "grdb_migrations")
        } catch let error as DatabaseError {
            throw storageError(error, path: path)
        }
    }

    /// Refuses an SQLite database of another program: one with tables but not the change log.
    static func checkOwnership(_ reader: any DatabaseReader, path: String, ignoring ignored: String = "") throws {
        let (tables, ours) = try reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name != ?", arguments: [ignored]) ?? 0,
             try db.tableExists("change_log"))
        }
        guard tables == 0 || ours else {
            throw ServiceError.storageUnavailable(path: path, cause: "is an SQLite database of another program (it has no switchboard tables)")
        }
    }

    /// The ``ServiceError`` for a database error that is about the storage, not the query.
    public static func storageError(_ error: DatabaseError, path: String) -> any Error {
        switch error.resultCode {
        case .SQLITE_READONLY:
            return ServiceError.storageReadOnly(path: path, cause: "the database cannot be written")
        case .SQLITE_NOTADB:
            return ServiceError.storageUnavailable(path: path, cause: "is not an SQLite database")
        case .SQLITE_CORRUPT:
            return ServiceError.storageUnavailable(path: path, cause: "is corrupt")
        case .SQLITE_CANTOPEN:
            return ServiceError.storageUnavailable(path: path, cause: "cannot be opened (check the file and folder permissions)")
        case .SQLITE_FULL:
            return ServiceError.storageUnavailable(path: path, cause: "the disk is full")
        case .SQLITE_IOERR where error.extendedResultCode == .SQLITE_IOERR_WRITE:
            // ENOSPC is SQLITE_FULL; EFBIG (a file-size limit) and failing hardware end up here.
            return ServiceError.storageUnavailable(path: path, cause: "a disk write failed (the disk or a file-size limit may be full)")
        case .SQLITE_IOERR:
            return ServiceError.storageUnavailable(path: path, cause: "a disk read or write failed")
        case .SQLITE_PERM, .SQLITE_AUTH:
            return ServiceError.storageUnavailable(path: path, cause: "access was denied")
        case .SQLITE_INTERRUPT:
            // A cancelled request's statement (CancellableReads, GRDB's cancellation).
            return CancellationError()
        case .SQLITE_BUSY where Task.isCancelled:
            // Its wait for the lock ended with its request's cancel (BusyWait), not after 10 s.
            return CancellationError()
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return ServiceError.storageUnavailable(path: path, cause: "another process kept the database locked for over 10 s")
        default:
            return error
        }
    }
}

extension AppDatabase {
    /// Runs `body` in a read transaction, synchronously on the calling thread: what every service
    /// read goes through. On disk it borrows a read-only connection no other read is using, opening
    /// one when all are in use (``ReadConnections``), so the read waits for no other task and does not
    /// hop to another thread (GRDB's asynchronous read hops to a reader queue and back, two thread
    /// wake-ups that cost more than a short read). It never holds a thread longer than the query
    /// itself takes.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        // A request cancelled before its read began (it waited for a thread) reads nothing.
        if Task.isCancelled { throw CancellationError() }
        do {
            if let readers { return try readers.read(body) }
            return try writer.read(body)
        } catch let error as DatabaseError {
            throw Self.storageError(error, path: path)
        }
    }

    /// Runs `body`, which reads with **one** statement, as ``read(_:)`` does but outside a transaction:
    /// one statement reads one snapshot on its own, and a read this short costs about as much as the
    /// `BEGIN` and `COMMIT` around it. Several statements here could each see another commit.
    public func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
        if Task.isCancelled { throw CancellationError() }
        do {
            if let readers { return try readers.readStatement(body) }
            return try writer.read(body)
        } catch let error as DatabaseError {
            throw Self.storageError(error, path: path)
        }
    }

    /// Runs `updates` in a write transaction: what every service write goes through. A read-only
    /// database answers ``ServiceError/storageReadOnly(path:cause:)``; storage failures are
    /// ``ServiceError``s naming the file. Writes go in one at a time, in order (``WriteGate``); one
    /// cancelled while it waits its turn throws `CancellationError` at once.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if let readOnlyCause { throw ServiceError.storageReadOnly(path: path, cause: readOnlyCause) }
        try await writeGate.enter()
        defer { writeGate.leave() }
        do {
            return try await writer.write(updates)
        } catch let error as DatabaseError {
            throw Self.storageError(error, path: path)
        }
    }
}

/// One named schema step. Names are permanent: a new change is a new migration.
public struct DatabaseMigration: Sendable {
    public let name: String
    public let apply: @Sendable (Database) throws -> Void

    public init(_ name: String, apply: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.apply = apply
    }
}

extension AppDatabase {
    /// Throws unless the file at `path` is missing or is a switchboard database (an SQLite file with
    /// the change log), so `seed --reset` never deletes anything else.
    public static func checkDeletable(_ path: String) throws(ServiceError) {
        var info = stat()
        guard path != ":memory:", stat(path, &info) == 0 else { return }
        if case .readOnly(let cause) = try DatabaseFile.access(path) {
            throw ServiceError.storageReadOnly(path: path, cause: cause)
        }
        let ours: Bool
        do {
            let queue = try DatabaseQueue(path: DatabaseFile.sqliteName(path), configuration: configuration(readOnly: true))
            ours = try queue.read { db in try db.tableExists("change_log") && db.tableExists("grdb_migrations") }
        } catch {
            ours = false
        }
        guard ours else {
            throw ServiceError.storageUnavailable(path: path, cause: "is not a switchboard database; refusing to delete it")
        }
    }
}
