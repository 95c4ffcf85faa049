import GRDB
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore

extension AppDatabase {
    /// Posts `signal` after every transaction of this process that wrote the change log, whichever
    /// domain wrote it: GRDB observes the commits, so no write path can forget to signal. Keep the
    /// returned value for as long as signals should be posted.
    ///
    /// Other processes learn of the commit through ``DatabaseWatcher``: after each one this process
    /// also touches ``announcementPath`` (`PATH.lock`). Their watchers see the WAL being written too,
    /// but that write comes *before* SQLite marks the commit in the shared WAL index (a memory map,
    /// which inotify does not see): a reader woken by it alone may find nothing new and then never be
    /// woken again. The touch comes after the commit is visible.
    public func signalChanges(to signal: ChangeSignal) throws -> AnyDatabaseCancellable {
        Self.observeCommits(of: try writer, path: path, signal: signal)
    }

    /// What ``signalChanges(to:)`` starts, on `writer` (the database at `path`).
    static func observeCommits(of writer: any DatabaseWriter, path: String, signal: ChangeSignal) -> AnyDatabaseCancellable {
        let announcement = path == ":memory:" ? nil : announcementPath(for: path)
        return DatabaseRegionObservation(tracking: Table("change_log"))
            .start(in: writer, onError: { _ in }, onChange: { _ in
                signal.post()
                // Not through a symbolic link: the lock file is ours, what it might point to is not.
                if let announcement { _ = utimensat(AT_FDCWD, announcement, nil, AT_SYMLINK_NOFOLLOW) }
            })
    }

    /// The file whose modification time announces a commit to other processes: the setup lock's.
    public static func announcementPath(for path: String) -> String { path + ".lock" }
}
