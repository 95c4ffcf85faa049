import CBenchShims
import Glibc

/// CPU seconds (user + system, all threads) a live process has used so far, from `/proc/PID/stat`;
/// `nil` once it is gone. Read before and after the measured phase, so start-up and warm-up do not count.
func processCPUSeconds(_ pid: pid_t) -> Double? {
    let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15.
    guard let close = bytes[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = bytes[(close + 1)..<count].split(separator: UInt8(ascii: " "))
    guard fields.count > 12, let user = Double(String(decoding: fields[11], as: UTF8.self)),
          let system = Double(String(decoding: fields[12], as: UTF8.self)) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The peak resident set of a live process's own memory in KB (`VmHWM` of `/proc/PID/status`); `nil`
/// once it is gone.
///
/// wait4's `ru_maxrss` is not enough for a small server: Linux carries the memory high-water mark
/// from before `exec` over into the child, so a child of a 10 MB driver shows at least 10 MB there
/// (rpcbench's children show its ~1.6 MB for the same reason).
func processPeakRSSKilobytes(_ pid: pid_t) -> Int? {
    let descriptor = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    for line in bytes[..<count].split(separator: 0x0A) where line.starts(with: Array("VmHWM:".utf8)) {
        return Int(String(decoding: line.dropFirst(6), as: UTF8.self).filter(\.isNumber))
    }
    return nil
}

/// Seconds of a `timeval` (rusage's CPU times).
func seconds(_ value: timeval) -> Double { Double(value.tv_sec) + Double(value.tv_usec) / 1e6 }

/// Pins the calling process to one CPU (children spawned afterwards inherit it); `false` if refused.
@discardableResult
func pinToCPU(_ cpu: Int32) -> Bool { sb_bench_pin_cpu(cpu) == 0 }

/// Writes a line to stderr (the driver's only diagnostics channel; stdout carries the report).
func printError(_ text: String) {
    let line = Array("switchboard-load: \(text)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}
