/// Why a confined file could not be opened or read (see ``ReadRoots``).
///
/// - Important: ``refused`` is one answer for everything outside the allowed folders: a missing file,
///   a file there, a folder, a symbolic link out of the folders, a file the host may not read. Only
///   inside the folders does an error say more (``unreadable(_:)``), so a caller learns nothing about
///   the rest of the file system.
public enum FileAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a file this host lets requests read.
    case refused
    /// The path itself is not one: empty, or it holds a NUL character.
    case invalidPath(String)
    /// Inside the allowed folders, but not a file that can be read: the reason, e.g. `no such file`.
    case unreadable(String)

    public var description: String {
        switch self {
        case .refused: ReadRoots.refusal
        case .invalidPath(let reason), .unreadable(let reason): reason
        }
    }
}
