#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import Logging
import SystemCalls

/// Copies a plugin's stderr into the host's log line by line, each prefixed with the plugin's name and
/// its control characters escaped (``LogText``), and keeps the last lines for the error a crash answers with.
final class StderrRelay: @unchecked Sendable {
    static let tailLines = 20
    static let maxLineBytes = 1_000

    private let lock = ConditionLock()
    private var tail: [String] = []
    private var done = false

    /// Starts reading `fd` on a thread of its own; the thread closes it at end of input. Throws, and
    /// leaves `fd` open, when the thread cannot be started.
    init(fd: Int32, plugin: String, logger: Logger) throws(ThreadStartError) {
        try OSThread.detach(name: "sb-plugin-stderr") { [self] in relay(fd: fd, plugin: plugin, logger: logger) }
    }

    /// The last lines, oldest first; waits up to `milliseconds` for the rest of the output first.
    func lastLines(waitingUpTo milliseconds: Int = 0) -> [String] {
        let deadline = monotonicNanoseconds() + UInt64(milliseconds) * 1_000_000
        return lock.withLock {
            while !done, monotonicNanoseconds() < deadline { _ = lock.wait(until: deadline) }
            return tail
        }
    }

    private func relay(fd: Int32, plugin: String, logger: Logger) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var line: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { buffer in SystemCall.retrying { read(fd, buffer.baseAddress, buffer.count) } }
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                if byte == 0x0A {
                    emit(line, plugin: plugin, logger: logger)
                    line.removeAll(keepingCapacity: true)
                } else if line.count < Self.maxLineBytes {
                    line.append(byte)
                }
            }
        }
        if !line.isEmpty { emit(line, plugin: plugin, logger: logger) }
        close(fd)
        lock.withLock {
            done = true
            lock.broadcast()
        }
    }

    private func emit(_ bytes: [UInt8], plugin: String, logger: Logger) {
        let text = String(decoding: bytes, as: UTF8.self)
        logger.warning("\(plugin): \(LogText.escaped(text))")
        lock.withLock {
            tail.append(text)
            if tail.count > Self.tailLines { tail.removeFirst(tail.count - Self.tailLines) }
            lock.broadcast()
        }
    }
}
