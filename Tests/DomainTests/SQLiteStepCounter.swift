import GRDBSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts the SQLite virtual-machine steps run on every connection to one database file, whichever
/// part of the process opens it (the writer, the read connections): a measure of the rows a request
/// visits that no load on the machine changes. Connections opened after ``watch(_:)`` are counted
/// (an SQLite auto-extension installs a progress handler called at every step).
///
/// - Important: One file is watched at a time, process-wide: suites that count run `.serialized`
///   within themselves and watch files no other test opens.
enum SQLiteStepCounter {
    private struct Watch {
        var path: String?
        var registered = false
    }

    private static let watched = Mutex(Watch())
    private static let steps = Atomic<Int>(0)

    /// Starts counting the steps of connections opened from now on to the file `name` in the existing
    /// `folder` (and stops counting any other file's).
    static func watch(folder: String, name: String) {
        let resolved = realpath(folder, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? folder
        let register = watched.withLock { watch in
            watch.path = resolved + "/" + name
            defer { watch.registered = true }
            return !watch.registered
        }
        if register { sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self)) }
    }

    /// Steps counted so far.
    static var total: Int { steps.load(ordering: .relaxed) }

    private static let entryPoint: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?) -> Int32 = { db, _, _ in
        guard let db, let name = sqlite3_db_filename(db, "main") else { return SQLITE_OK }
        let file = String(cString: name)
        guard SQLiteStepCounter.watched.withLock({ $0.path }) == file else { return SQLITE_OK }
        sqlite3_progress_handler(db, 1, { _ in
            SQLiteStepCounter.steps.add(1, ordering: .relaxed)
            return 0
        }, nil)
        return SQLITE_OK
    }
}
