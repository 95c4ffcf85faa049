#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes frames to a file descriptor (stdout, a plugin's stdin).
///
/// The input thread writes its replies itself when nothing else is being written, which saves a
/// thread hop per request; frames from tasks are queued and written by a writer thread. Only one of
/// them writes at a time, so frames never interleave. Threads are woken only when there is work for
/// them: an idle writer costs nothing per request. When the reader of the descriptor goes away
/// (`EPIPE`), the sink drops further output and calls `onClosed` once.
public final class FileDescriptorSink: FrameSink, @unchecked Sendable {
    private let fd: Int32
    private let lock = ConditionLock()
    private var pending: [UInt8] = []
    private var writing = false
    private var closed = false
    /// The writer thread is waiting for frames.
    private var writerIdle = false
    /// Other threads waiting: the input thread (queue full) and `flush` callers.
    private var waiters = 0
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
                while !closed, pending.count > Self.highWater { waitLocked() }
                pending.append(contentsOf: bytes)
                wakeLocked()
                return false
            }
            writing = true
            return true
        }
        guard direct else { return }
        finishWrite(writeAll(bytes))
    }

    public func enqueue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        lock.withLock {
            guard !closed else { return }
            pending.append(contentsOf: bytes)
            if !writing { wakeLocked() }
        }
    }

    public func flush(deadline: UInt64?) -> Bool {
        lock.withLock {
            while !closed, writing || !pending.isEmpty {
                guard let deadline else {
                    waitLocked()
                    continue
                }
                if monotonicNanoseconds() >= deadline { return false }
                waiters += 1
                lock.wait(until: deadline)
                waiters -= 1
            }
            return true
        }
    }

    /// True once the descriptor's reader has gone.
    public var isClosed: Bool { lock.withLock { closed } }

    private func writerLoop() {
        while true {
            let batch: [UInt8] = lock.withLock {
                while !closed, writing || pending.isEmpty {
                    writerIdle = true
                    lock.wait()
                    writerIdle = false
                }
                if closed { return [] }
                writing = true
                var batch: [UInt8] = []
                swap(&batch, &pending)
                return batch
            }
            if batch.isEmpty { return }
            finishWrite(writeAll(batch))
            if isClosed { return }
        }
    }

    /// Ends a write: hands queued frames to the writer, wakes `flush`, reports a closed descriptor.
    private func finishWrite(_ ok: Bool) {
        lock.withLock {
            writing = false
            if !ok { closed = true }
            wakeLocked()
        }
        if !ok { onClosed() }
    }

    private func waitLocked() {
        waiters += 1
        lock.wait()
        waiters -= 1
    }

    /// Wakes waiting threads only if one of them has something to do now.
    private func wakeLocked() {
        let writerHasWork = writerIdle && !writing && !pending.isEmpty
        if writerHasWork || waiters > 0 || closed { lock.broadcast() }
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
