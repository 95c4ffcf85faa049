#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place system calls are retried when a signal interrupts them (`EINTR`), and the one loop
/// that writes a whole buffer to a descriptor.
///
/// ```swift
/// let count = SystemCall.retrying { read(fd, buffer, size) }
/// ```
public enum SystemCall {
    /// Calls `call` again for as long as it fails with `EINTR`; returns its first other result, with
    /// `errno` as that call left it when the result is -1.
    @inlinable
    public static func retrying<Result: SignedInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    /// Writes every byte of `bytes` to `fd`: retried on `EINTR`, and on a non-blocking descriptor that
    /// is full (`EAGAIN`) it waits until the descriptor takes more. False when it takes no more
    /// (`EPIPE`, any other error).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = retrying { write(fd, base + offset, bytes.count - offset) }
            if written < 0 {
                guard errno == EAGAIN || errno == EWOULDBLOCK else { return false }
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = retrying { poll(&poller, 1, -1) }
                continue
            }
            offset += written
        }
        return true
    }

    /// The same for the bytes of an array.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }
}
