import SwitchboardCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock (`flock`) on `DATABASE.open.lock` that says a switchboard process has the database
/// open: every ``AppDatabase`` on a file holds it shared for as long as it lives, and `seed --reset`
/// takes it exclusively, without waiting, before it deletes the file — so it refuses while any host,
/// `call`, `seed` or `mcp` has the file open (they would go on writing into the deleted file and
/// answer each write as done), and openers that come while it deletes and seeds wait until it is done.
///
/// - Important: A file of its own, not `PATH.lock`: that one is held exclusively, and waited for, while
///   a process sets the database up, so a shared lock held there for a host's whole life would make
///   every later opener wait forever. Not the database either: closing any other descriptor of it drops
///   SQLite's POSIX locks for the whole process, and `--reset` replaces the file (a lock on the old
///   one would guard nothing). SQLite locks with `fcntl`, never `flock`, so the two never meet. The
///   kernel drops a `flock` when its process ends, even by `SIGKILL`: a crash never blocks a reset.
///   The descriptor is `O_CLOEXEC`, so plugins (child processes) never hold it. The file is never
///   deleted (a process may hold it); one this user may not write is locked through a read-only
///   descriptor, which `flock` allows.
final class OpenLock: Sendable {
    private let fd: Int32

    /// The lock file of the database at `path`.
    static func lockPath(for path: String) -> String { path + ".open.lock" }

    /// Takes the lock shared, waiting while a reset holds it; `waiting` is called once if it must wait.
    /// Returns `nil` when there is no lock file (`creating` false), when it cannot be made (a read-only
    /// folder, where no reset can delete anything either), or when `flock` fails (a file system without
    /// it): the database opens all the same.
    /// Throws when `PATH.open.lock` is a symbolic link or not a regular file.
    static func shared(for path: String, creating: Bool, waiting: () -> Void) throws(ServiceError) -> OpenLock? {
        guard let fd = try open(for: path, creating: creating) else { return nil }
        if flock(fd, LOCK_SH | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                close(fd)
                return nil
            }
            waiting()
            guard SystemCall.retrying({ flock(fd, LOCK_SH) }) == 0 else {
                close(fd)
                return nil
            }
        }
        return OpenLock(fd: fd)
    }

    /// Takes the lock exclusively, without waiting: what `seed --reset` holds while it deletes the
    /// database and makes it again.
    /// - Throws: ``DatabaseInUse`` while another process (or another ``AppDatabase`` of this one) holds
    ///   it; ``ServiceError/storageUnavailable(path:cause:)`` when the lock file cannot be made or locked,
    ///   since then nothing says the file is not in use.
    static func exclusive(for path: String) throws -> OpenLock {
        guard let fd = try open(for: path, creating: true) else {
            let error = errno
            throw ServiceError.storageUnavailable(
                path: path, cause: "its lock file \(lockPath(for: path)) cannot be made: \(errorText(error))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            if error == EWOULDBLOCK { throw DatabaseInUse(path: path) }
            throw ServiceError.storageUnavailable(
                path: path, cause: "its lock file \(lockPath(for: path)) cannot be locked: \(errorText(error))")
        }
        return OpenLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// A descriptor of the lock file, `nil` when it is missing (and not to be made) or cannot be opened,
    /// with `errno` saying why. Never through a symbolic link (it would make or lock the file it points
    /// to), never waiting on a FIFO (`O_NONBLOCK`; `flock` blocks or not by its own flag).
    private static func open(for path: String, creating: Bool) throws(ServiceError) -> Int32? {
        let lockPath = lockPath(for: path)
        let flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var fd = SystemCall.retrying { Glibc.open(lockPath, O_RDWR | flags | (creating ? O_CREAT : 0), 0o644) }
        if fd < 0, errno == EACCES || errno == EROFS {
            // Another user's lock file, or a read-only file system: locked through a read-only descriptor.
            fd = SystemCall.retrying { Glibc.open(lockPath, O_RDONLY | flags) }
        }
        guard fd >= 0 else {
            if errno == ELOOP {
                throw .storageUnavailable(path: path, cause: "its lock file \(lockPath) is a symbolic link; remove it")
            }
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .storageUnavailable(path: path, cause: "its lock file \(lockPath) is not a regular file; remove it")
        }
        return fd
    }

    private static func errorText(_ error: Int32) -> String { String(cString: strerror(error)) }
}

/// What `seed --reset` meets when another switchboard process has the database open: it deletes
/// nothing. Its text is the sentence the command prints after "cannot reset: ".
public struct DatabaseInUse: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file.
    public let path: String

    public init(path: String) { self.path = path }

    public var description: String { "\(ServiceError.show(path)) is open in another switchboard process; stop it first" }
}
