import CSystemShims
#if canImport(Glibc)
import Glibc
#endif

/// The folders a request may read files from: what the person running the host allows with
/// `--allow-read` (by default the current directory and the host's data folder). Plugins and agents
/// call methods too, so a path in a request is untrusted: it opens only if it lies inside one of
/// these folders after resolving `..` and symbolic links, and everything else gets one answer,
/// ``FileAccessError/refused``, that does not say whether the file exists.
///
/// ```swift
/// let roots = try ReadRoots(resolving: ["/home/me/mail"])
/// let file = try roots.open("exports/inbox.json")      // relative to the current directory
/// let bytes = try file.readAll(limit: 64 << 20)
/// ```
///
/// - Important: Opening is race-free: the path is resolved with `realpath`, checked against the
///   folders, then opened beneath the folder it lies in without following any symbolic link
///   (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`, or one component
///   at a time with `O_NOFOLLOW` on kernels without it), so a link swapped in between cannot lead out.
///   Files of `/proc`, `/sys` and other kernel file systems are refused even inside an allowed folder.
public struct ReadRoots: Sendable, Equatable {
    /// The allowed folders as real paths (symbolic links resolved), without a trailing `/`
    /// (except the root folder itself).
    public let folders: [String]

    /// No folder: every path is refused.
    public static let empty = ReadRoots(resolved: [])

    /// What ``FileAccessError/refused`` says.
    public static let refusal = "not a file this host lets requests read (only files inside the folders given with --allow-read)"

    private init(resolved: [String]) { folders = resolved }

    /// Resolves each of `paths` (relative ones against the current directory) to a real folder.
    /// - Throws: ``RootError`` naming the first that is missing or not a folder.
    public init(resolving paths: [String]) throws(RootError) {
        var folders: [String] = []
        for path in paths {
            guard !path.isEmpty, !path.utf8.contains(0), let real = Self.realPath(path) else {
                throw RootError(path: path, reason: "no such folder")
            }
            var info = stat()
            guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw RootError(path: path, reason: "not a folder")
            }
            if !folders.contains(real) { folders.append(real) }
        }
        self.folders = folders
    }

    /// The current directory and, when it exists, `dataFolder`: the default without `--allow-read`.
    /// A host started in `/` (as services often are) does not get the whole file system by default.
    public static func defaults(dataFolder: String?, currentDirectory: String = ".") -> ReadRoots {
        var folders: [String] = []
        for path in [currentDirectory, dataFolder].compactMap({ $0 }) {
            if let roots = try? ReadRoots(resolving: [path]), let folder = roots.folders.first, folder != "/", !folders.contains(folder) {
                folders.append(folder)
            }
        }
        return ReadRoots(resolved: folders)
    }

    /// A folder `--allow-read` named that is not one.
    public struct RootError: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "--allow-read \(path): \(reason)" }
    }

    // MARK: Opening

    /// Opens `path` (relative paths against the current directory) for reading, if it is a regular
    /// file inside one of the folders.
    public func open(_ path: String) throws(FileAccessError) -> ConfinedFile {
        let (folder, relative) = try resolve(path)
        return try openBeneath(folder, relative)
    }

    /// The allowed folder `path` lies in and the rest of its real path, or why it cannot be read.
    func resolve(_ path: String) throws(FileAccessError) -> (folder: String, relative: String) {
        guard !path.isEmpty else { throw .invalidPath("the path is empty") }
        guard !path.utf8.contains(0) else { throw .invalidPath("the path contains a NUL character") }
        guard let resolved = Self.realPath(path) else {
            // Missing (or unreachable): say so only when the folder it would be in is allowed.
            // A dangling symbolic link is refused too: where it points may be outside.
            var link = stat()
            if errno == ENOENT, lstat(path, &link) != 0, errno == ENOENT,
               let parent = Self.realPath(Self.parent(of: path)), folder(holding: parent) != nil {
                throw .unreadable("no such file")
            }
            throw .refused
        }
        guard let folder = folder(holding: resolved) else { throw .refused }
        guard resolved != folder else { throw .unreadable("a folder, not a file") }
        return (folder, String(decoding: resolved.utf8.dropFirst(folder == "/" ? 1 : folder.utf8.count + 1), as: UTF8.self))
    }

    /// Opens `relative` beneath `folder` following no link; `walk` forces the fallback for kernels
    /// without openat2 (tests).
    func openBeneath(_ folder: String, _ relative: String, walk: Bool = false) throws(FileAccessError) -> ConfinedFile {
        let root = sb_open_folder(folder)
        guard root >= 0 else { throw .refused }
        defer { close(root) }
        // O_NONBLOCK: a FIFO must not wait for a writer; O_NOCTTY: a terminal must not become ours.
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY
        let descriptor = walk ? sb_open_beneath_walk(root, relative, flags) : sb_open_beneath(root, relative, flags)
        guard descriptor >= 0 else { throw Self.openFailure(errno) }
        return try ConfinedFile(descriptor: descriptor)
    }

    /// The allowed folder `resolved` (a real path) lies in, if any.
    func folder(holding resolved: String) -> String? {
        folders.first { folder in
            folder == "/" || resolved == folder || resolved.hasPrefix(folder + "/")
        }
    }

    /// What a failed open beneath an allowed folder tells the caller.
    static func openFailure(_ code: Int32) -> FileAccessError {
        switch code {
        case ENOENT: .unreadable("no such file")
        case EACCES, EPERM: .unreadable("permission denied")
        case EISDIR: .unreadable("a folder, not a file")
        case ENXIO, ENODEV: .unreadable("not a regular file")
        // ELOOP, EXDEV, ENOTDIR: a symbolic link appeared on the way, leading who knows where.
        default: .refused
        }
    }

    /// `path` with symbolic links, `.` and `..` resolved against the current directory, or nil with errno set.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder part of `path`: `a/b` → `a`, `b` → `.`, `/b` → `/`.
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
