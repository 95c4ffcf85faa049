import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// What can be done with a database path, found out before SQLite is asked: every problem becomes
/// one ``ServiceError`` naming the file and the cause in plain words, not SQLite's internals.
public enum DatabaseFile {
    /// How the database can be opened.
    public enum Access: Sendable, Equatable {
        case readWrite
        /// Reads only; `cause` says why writing is impossible.
        case readOnly(cause: String)
    }

    /// The first 16 bytes of every SQLite 3 database.
    static let header = Array("SQLite format 3\0".utf8)

    /// Checks `path` and says how it can be opened; throws ``ServiceError/storageUnavailable(path:cause:)``
    /// when it cannot be used at all. A file or folder without any write permission bit counts as
    /// read-only even for root, who could write it anyway: the mode is what its owner meant.
    public static func access(_ path: String) throws(ServiceError) -> Access {
        guard !path.isEmpty else { throw unavailable(path, "the database path is empty; give a file name with --db") }
        let folder = self.folder(of: path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw unavailable(path, "cannot be examined: \(errorText())") }
            // A new database: its folder must exist and take new files.
            var folderInfo = stat()
            guard stat(folder, &folderInfo) == 0 else {
                throw unavailable(path, errno == ENOENT ? "its folder \(folder) does not exist" : "its folder \(folder) cannot be examined: \(errorText())")
            }
            guard isDirectory(folderInfo) else { throw unavailable(path, "\(folder) is not a folder") }
            guard isWritable(folder, folderInfo) else {
                throw unavailable(path, "the database does not exist and its folder \(folder) is read-only, so it cannot be created")
            }
            return .readWrite
        }
        guard !isDirectory(info) else { throw unavailable(path, "is a directory, not a database file") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw unavailable(path, "is not a regular file") }
        guard Glibc.access(path, R_OK) == 0 else { throw unavailable(path, "cannot be read: \(errorText())") }
        if info.st_size > 0 {
            guard let head = readHead(path) else { throw unavailable(path, "cannot be read: \(errorText())") }
            guard head == header else {
                throw unavailable(path, "is not an SQLite database (it does not start with the SQLite header)")
            }
        }
        guard isWritable(path, info) else { return .readOnly(cause: "the file is read-only") }
        var folderInfo = stat()
        if stat(folder, &folderInfo) == 0, !isWritable(folder, folderInfo) {
            return .readOnly(cause: "its folder \(folder) is read-only")
        }
        return .readWrite
    }

    /// The name to give SQLite for `path`. SQLite reads a name that starts with `file:` as a URI — its
    /// options, or another file than the one the checks here looked at — so such a path is given as
    /// `./file:…`, which SQLite takes as the file's name.
    public static func sqliteName(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// The name to open `path` with for reading only. A WAL database is read through its `-shm` file,
    /// which SQLite makes beside it: in a folder this user cannot write, with no `-wal` or `-shm`
    /// there, it cannot, and even a read fails. When the file itself has no write permission bit
    /// either, it is meant to stay as it is (``access(_:)`` reads modes so), no commit is pending (no
    /// `-wal`), and it is opened `immutable`: no shared memory, no locks. A file its owner may still
    /// write is opened as usual: `immutable` would read it wrongly once the owner writes; it reads
    /// while a `-shm` is there (a process of the owner has it open).
    public static func readOnlyName(_ path: String) -> String {
        let folder = self.folder(of: path)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o222 == 0, Glibc.access(folder, W_OK) != 0,
              Glibc.access(path + "-wal", F_OK) != 0, Glibc.access(path + "-shm", F_OK) != 0 else {
            return sqliteName(path)
        }
        // `file:` then the path, absolute after an empty authority; bytes other than these percent-encoded.
        let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-~".utf8)
        var uri = path.hasPrefix("/") ? "file://" : "file:"
        for byte in path.utf8 {
            if plain.contains(byte) {
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                uri += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return uri + "?immutable=1"
    }

    /// True when `path` is a file with something in it (a database that may be set up already).
    public static func hasContent(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_size > 0
    }

    /// The folder holding `path`.
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Removes the database and its WAL files (not `PATH.lock` or `PATH.open.lock`, which other processes may hold).
    public static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    static func unavailable(_ path: String, _ cause: String) -> ServiceError {
        .storageUnavailable(path: path, cause: cause)
    }

    static func errorText() -> String { String(cString: strerror(errno)) }

    private static func isDirectory(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFDIR }

    private static func isWritable(_ path: String, _ info: stat) -> Bool {
        (info.st_mode & 0o222) != 0 && Glibc.access(path, W_OK) == 0
    }

    private static func readHead(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: header.count)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return Array(bytes.prefix(count))
    }
}
