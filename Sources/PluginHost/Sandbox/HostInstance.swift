#if canImport(Glibc)
import Glibc
#endif

/// What names one host process for good, `NS-PID-START` (its pid namespace, pid and start time), in the names of
/// the folders it makes (``PidsCgroups``, ``PrivateTemporaryFolders``): a host that was killed leaves them behind,
/// and a later host in the same pid namespace can tell that their maker is gone.
enum HostInstance {
    /// `NS-PID-START` for this process; nil where `/proc` cannot say.
    static func name() -> String? {
        guard let namespace = pidNamespace(), let start = startTime(of: getpid()) else { return nil }
        return "\(namespace)-\(getpid())-\(start)"
    }

    /// The inode of this process's pid namespace (`pid:[4026531836]` → `4026531836`).
    static func pidNamespace() -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let digits = text.filter(\.isNumber)
        return digits.isEmpty ? nil : digits
    }

    /// Field 22 of `/proc/PID/stat` (clock ticks after boot): with the pid, it names one process for good.
    static func startTime(of pid: Int32) -> String? {
        guard let stat = KernelFile.read("/proc/\(pid)/stat", limit: 4_096), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }

    /// Whether `name` is `prefix` then `PID-START` (then `-` and one more part, with `suffixed`: mkdtemp's), naming
    /// a host of this pid namespace that is gone: what a host may remove of the folders hosts name after themselves.
    static func isLeftByGoneHost(_ name: String, prefix: String, suffixed: Bool) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == (suffixed ? 3 : 2) && isGone(pid: parts[0], start: parts[1])
    }

    /// Whether the host `PID-START` of this pid namespace is gone: no process has that pid, or the one that has it
    /// started at another time. False for what is not `PID-START`.
    static func isGone(pid: Substring, start: Substring) -> Bool {
        guard let number = Int32(pid), number > 0, !start.isEmpty, start.allSatisfy(\.isNumber) else { return false }
        return startTime(of: number) != String(start)
    }
}
