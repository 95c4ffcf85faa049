#if canImport(Glibc)
import Glibc
#endif
import SystemCalls

/// Reads and writes of the kernel's small files (`/proc`, cgroup files), whose size `stat` does not tell.
enum KernelFile {
    /// The text of `path`, at most `limit` bytes; nil when it cannot be read.
    static func read(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { raw in SystemCall.retrying { Glibc.read(fd, raw.baseAddress, raw.count) } }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes.prefix(limit), as: UTF8.self)
    }

    /// Writes `text` to `path` in one write; 0, or the errno of the failure.
    @discardableResult
    static func write(_ text: String, to path: String) -> Int32 {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { raw in SystemCall.retrying { Glibc.write(fd, raw.baseAddress, raw.count) } }
        if written == bytes.count { return 0 }
        return written < 0 ? errno : EIO
    }
}
