#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes frames to a file descriptor (stdout, a plugin's stdin).
///
/// The input thread writes its replies itself when nothing else is being written, which saves a
/// thread hop per request; frames from tasks are queued and written by a writer thread. Only one of
/// them writes at a time, so frames never interleave. When the reader of the descriptor goes away
/// (`EPIPE`), the sink drops further output and calls `onClosed` once.
public final class FileDescriptorSink: FrameSink, @unchecked Sendable {
    private let fd: Int32
    private let lock = ConditionLock()
    private var pending: [UInt8] = []
    private var writing = false
    private var closed = false
    private let onClosed: @Sendable () -> Void
    /// How much queued output makes the input thread wait for the writer.
    private static var highWater: Int { 4 << 20 }

    public init(fd: Int32, onClosed: @escaping @Sendable () -> Void = {}) {
        self.fd = fd
        self.onClosed = onClosed
        OSThread.detach(name: "sb-writer") { [self] in writerLoop() }
    }

    public func writeFromInput(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let direct: Bool = lock.withLock {
            if closed { return false }
            if writing || !pending.isEmpty {
                while !closed, pending.count > Self.highWater { lock.wait() }
                pending.append(contentsOf: bytes)
                lock.broadcast()
                return false
            }
            writing = true
            return true
        }
        guard direct else { return }
        let ok = writeAll(bytes)
        lock.withLock {
            writing = false
            if !ok { closed = true }
            lock.broadcast()
        }
        if !ok { onClosed() }
    }

    public func enqueue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        lock.withLock {
            guard !closed else { return }
            pending.append(contentsOf: bytes)
            if !writing { lock.broadcast() }
        }
    }

    public func flush() {
        lock.withLock {
            while !closed, writing || !pending.isEmpty { lock.wait() }
        }
    }

    /// True once the descriptor's reader has gone.
    public var isClosed: Bool { lock.withLock { closed } }

    private func writerLoop() {
        while true {
            let batch: [UInt8] = lock.withLock {
                while closed ? false : (writing || pending.isEmpty) { lock.wait() }
                if closed { return [] }
                writing = true
                var batch: [UInt8] = []
                swap(&batch, &pending)
                return batch
            }
            if batch.isEmpty { return }
            let ok = writeAll(batch)
            lock.withLock {
                writing = false
                if !ok { closed = true }
                lock.broadcast()
            }
            if !ok {
                onClosed()
                return
            }
        }
    }

    /// Writes every byte; false when the descriptor can take no more (EPIPE and other errors).
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN {
                        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&poller, 1, -1)
                        continue
                    }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
