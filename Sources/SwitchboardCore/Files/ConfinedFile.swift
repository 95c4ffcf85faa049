import CSystemShims
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A regular file opened for reading (through ``ReadRoots``, or ``RegularFile``): its descriptor, closed when the value goes.
public final class ConfinedFile: Sendable {
    private let descriptor: Int32
    /// The file's size when it was opened.
    public let size: Int

    /// Takes `descriptor`; refuses (and closes) anything but a regular file on an ordinary file system.
    init(descriptor: Int32) throws(FileAccessError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw .unreadable("cannot be read")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            close(descriptor)
            throw .unreadable("a folder, not a file")
        default:
            close(descriptor)
            throw .unreadable("not a regular file")
        }
        let system = sb_file_system_type(descriptor)
        guard system >= 0, !Self.kernelFileSystems.contains(Int64(system)) else {
            close(descriptor)
            throw .refused
        }
        self.descriptor = descriptor
        size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// proc, sysfs, debugfs, securityfs, tracefs, configfs, cgroup, cgroup2, efivarfs, bpf: files
    /// that are windows on the kernel and processes, not data (their sizes lie, too).
    static let kernelFileSystems: Set<Int64> = [
        0x9FA0, 0x6265_6572, 0x6462_6720, 0x7363_6673, 0x7472_6163, 0x6265_6570, 0x0027_E0EB, 0x6367_7270,
        0xDE5E_81E4, 0xCAFE_4A11,
    ]

    /// The whole file, or ``FileAccessError/unreadable(_:)`` when it holds more than `limit` bytes.
    public func readAll(limit: Int) throws(FileAccessError) -> [UInt8] {
        let tooLarge = FileAccessError.unreadable("too large: over \(Self.describe(limit)), the most a request reads; split it")
        guard size <= limit else { throw tooLarge }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { chunk in SystemCall.retrying { Glibc.read(descriptor, chunk.baseAddress, chunk.count) } }
            if count < 0 { throw .unreadable("cannot be read") }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw tooLarge }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
