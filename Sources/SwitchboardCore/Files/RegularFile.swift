#if canImport(Glibc)
import Glibc
#endif

/// Files the operator names when starting the host (`--mcp-config`, a plugin's `plugin.json`, the
/// recording `replay` reads): opened without waiting, read only when regular.
///
/// A plain `open` of a FIFO waits for a writer, and a terminal or a device never ends, so start-up
/// would hang with nothing answered. The file is opened with `O_NONBLOCK` and `O_NOCTTY`, then
/// `fstat` decides (``ConfinedFile``'s check, without the folder confinement requests get).
public enum RegularFile {
    /// The whole file at `path`; ``FileAccessError/unreadable(_:)`` says why not (the reason names
    /// no content of the file).
    public static func read(_ path: String, limit: Int) throws(FileAccessError) -> [UInt8] {
        guard !path.isEmpty, !path.utf8.contains(0) else { throw .invalidPath("an empty path or one holding NUL") }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        do {
            return try ConfinedFile(descriptor: descriptor).readAll(limit: limit)
        } catch .refused {
            throw .unreadable("a file of a kernel file system (proc, sysfs, …), not a data file")
        }
    }
}
