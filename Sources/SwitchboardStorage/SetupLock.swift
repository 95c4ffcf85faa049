import SwitchboardCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock (`flock`) on `DATABASE.lock`, held while a process opens, migrates and
/// seeds the database, so any number of processes starting at once on one fresh file take turns:
/// the first creates and seeds, the others find it ready.
///
/// A file of its own, not the database: SQLite's POSIX locks on the database would be dropped by
/// closing any other descriptor of it in this process.
struct SetupLock: ~Copyable {
    private let fd: Int32

    /// Takes the lock, waiting for the process that holds it; `waiting` is called once if it must wait.
    /// Returns `nil` when the lock file cannot be created (a read-only folder: nothing can be set up there).
    /// Throws when `PATH.lock` is a symbolic link: opening it would create or lock the file it points to.
    static func acquire(for path: String, waiting: () -> Void) throws(ServiceError) -> SetupLock? {
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        if fd < 0, errno == ELOOP {
            throw .storageUnavailable(path: path, cause: "its lock file \(path).lock is a symbolic link; remove it")
        }
        guard fd >= 0 else { return nil }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            waiting()
            guard SystemCall.retrying({ flock(fd, LOCK_EX) }) == 0 else {
                close(fd)
                return nil
            }
        }
        return SetupLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
