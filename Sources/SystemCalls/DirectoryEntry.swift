#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `readdir` returns, read safely.
public enum DirectoryEntry {
    /// The name of `entry`, read up to its NUL.
    ///
    /// - Important: A record `readdir` returns is only as long as its name (`d_reclen`), not
    ///   `MemoryLayout<dirent>.size`: copying the whole `d_name` array (`entry.pointee.d_name`, 256 bytes) reads
    ///   past it, and past the end of the buffer that holds the last record, a crash where that buffer ends a page.
    public static func name(of entry: UnsafePointer<dirent>) -> String {
        guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return "" }
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }
}
