#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import SystemCalls

/// Writes frames to a file descriptor (stdout, a plugin's stdin), holding at most about `limit` bytes
/// that are not written yet (see ``FrameSink`` for what happens at the bound).
///
/// The input thread writes its replies itself when nothing else is being written and the pipe has room
/// for the frame, and so does a task (the write cannot block), which saves a thread hop per
/// request; a socket (libuv, so Node and VS Code, gives a child socketpairs) is offered the frame
/// without waiting (`MSG_DONTWAIT`) and what it does not take is queued; other frames are queued and written by a writer thread. ``writeIfRoom(_:)`` does the same for a
/// plain thread that must not wait (a plugin's reader answering a client). Only one of
/// them writes at a time, so frames never interleave. Threads are woken only when there is work for
/// them: an idle writer costs nothing per request. When the reader of the descriptor goes away
/// (`EPIPE`), the sink drops further output and calls `onClosed` once.
///
/// - Important: a task whose answer does not fit is suspended (its continuation parked here with its
///   bytes) rather than blocking one of the few threads of Swift's cooperative pool: with the pool
///   blocked, nothing else in the process — other requests, the database — could run.
public final class FileDescriptorSink: FrameSink, @unchecked Sendable {
    private struct Parked {
        var bytes: [UInt8]
        var continuation: UnsafeContinuation<Void, Never>
    }

    private let fd: Int32
    /// How many bytes may wait to be written; one larger frame passes when nothing else waits.
    public let limit: Int
    private let lock = ConditionLock()
    private var pending: [UInt8] = []
    /// Bytes being written right now, by the writer thread or directly by the input thread.
    private var inWrite = 0
    private var writing = false
    private var closed = false
    /// The writer thread is waiting for frames.
    private var writerIdle = false
    /// Other threads waiting: the input thread (output full) and `flush` callers.
    private var waiters = 0
    /// Answers waiting for room, oldest first.
    private var parked: [Parked] = []
    /// `offer` refused frames since the room handler last ran.
    private var refused = false
    private var roomHandler: (@Sendable () -> Void)?
    /// ``close()`` was called: the descriptor is closed once no write is under way.
    private var closeRequested = false
    private var descriptorClosed = false
    private let onClosed: @Sendable () -> Void
    /// The size of the pipe `fd` is (`F_GETPIPE_SZ`); 0 when it is not a pipe. It grows once, the first
    /// time a frame much larger than the pipe is written (``growPipe(toTake:)``); negative when that failed.
    private let pipeCapacity: Atomic<Int>
    /// The descriptor is a socket: frames are offered with `send(MSG_DONTWAIT)`, which never waits.
    private let isSocket: Bool
    /// Linux's `F_GETPIPE_SZ` and `F_SETPIPE_SZ`, which Glibc's module does not export.
    private static let getPipeSize: Int32 = 1032
    private static let setPipeSize: Int32 = 1031
    /// What a pipe grows to for large frames: Linux's default `pipe-max-size`, which any process may ask for.
    static let largePipeCapacity = 1 << 20

    /// Throws when its writer thread cannot be started (the caller still owns `fd` then).
    public init(fd: Int32, limit: Int = 4 << 20, onClosed: @escaping @Sendable () -> Void = {}) throws(ThreadStartError) {
        self.fd = fd
        self.limit = max(1, limit)
        self.onClosed = onClosed
        pipeCapacity = Atomic(max(0, Int(fcntl(fd, Self.getPipeSize))))
        var status = stat()
        isSocket = fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
        try OSThread.detach(name: "sb-writer") { [self] in writerLoop() }
    }

    public func setRoomHandler(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { roomHandler = handler }
    }

    /// Bytes queued or being written, not yet taken by the descriptor: at most `limit`, or one frame
    /// when a larger one passed alone.
    public var queuedByteCount: Int { lock.withLock { pending.count + inWrite } }

    /// How many answers wait for room.
    public var waitingAnswerCount: Int { lock.withLock { parked.count } }

    /// A reply of the input thread: written by it when nothing else is being written and the descriptor
    /// surely takes it without waiting (``takesAtOnce(_:)``: a client that writes its requests before it
    /// reads stopped the host at the pipe's 64 KiB, far below ``limit``), else queued; the thread waits
    /// at the bound. A descriptor that is neither pipe nor socket (a file, a terminal) is written as
    /// before, and may make it wait.
    public func writeFromInput(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let direct: Bool = lock.withLock {
            if closed { return false }
            if !writing, pending.isEmpty, parked.isEmpty, pipeCapacity.load(ordering: .relaxed) == 0 && !isSocket || takesAtOnce(bytes.count) {
                writing = true
                inWrite = bytes.count
                return true
            }
            while !closed, !(parked.isEmpty && fitsLocked(bytes.count)) { waitLocked() }
            if closed { return false }
            queueLocked(bytes)
            wakeLocked()
            return false
        }
        guard direct else { return }
        writeDirectly(bytes)
    }

    public func enqueue(_ bytes: [UInt8]) async {
        guard !bytes.isEmpty else { return }
        let direct: Bool = lock.withLock {
            guard !closed, !writing, pending.isEmpty, parked.isEmpty, takesAtOnce(bytes.count) else { return false }
            writing = true
            inWrite = bytes.count
            return true
        }
        if direct {
            writeDirectly(bytes)
            return
        }
        if lock.withLock({ admitLocked(bytes) }) { return }
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let admitted: Bool = lock.withLock {
                if admitLocked(bytes) { return true }
                parked.append(Parked(bytes: bytes, continuation: continuation))
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    public func writeIfRoom(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        enum Decision { case direct, queued, full }
        let decision: Decision = lock.withLock {
            if !closed, !writing, pending.isEmpty, parked.isEmpty, takesAtOnce(bytes.count) {
                writing = true
                inWrite = bytes.count
                return .direct
            }
            return admitLocked(bytes) ? .queued : .full
        }
        if decision == .direct { writeDirectly(bytes) }
        return decision != .full
    }

    /// Writes or queues `bytes` at once, never waiting, past ``limit`` too, unless more than `backlog`
    /// bytes already wait: then takes nothing and returns false. For an output whose reader must keep
    /// up or be given up on (a plugin's stdin: ``FrameSink`` waits would stop the host's threads), used
    /// for every frame to it, so nothing is parked and order is kept.
    public func writeUnlessBacklogged(_ bytes: [UInt8], over backlog: Int) -> Bool {
        guard !bytes.isEmpty else { return true }
        enum Decision { case direct, queued, backlogged }
        let decision: Decision = lock.withLock {
            if closed { return .queued }
            if !writing, pending.isEmpty, parked.isEmpty, takesAtOnce(bytes.count) {
                writing = true
                inWrite = bytes.count
                return .direct
            }
            guard parked.isEmpty, pending.count + inWrite <= backlog else { return .backlogged }
            queueLocked(bytes)
            if !writing { wakeLocked() }
            return .queued
        }
        if decision == .direct { writeDirectly(bytes) }
        return decision != .backlogged
    }

    public func offer(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        return lock.withLock {
            if admitLocked(bytes) { return true }
            refused = true
            return false
        }
    }

    public func flush(deadline: UInt64?) -> Bool {
        lock.withLock {
            while !closed, writing || !pending.isEmpty || !parked.isEmpty {
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

    /// Stops writing and closes the descriptor, so its reader (a plugin's stdin) sees end of input;
    /// frames not yet written are dropped. A write under way finishes first, and then closes it.
    public func close() {
        let (closeNow, resumed): (Bool, [UnsafeContinuation<Void, Never>]) = lock.withLock {
            guard !closeRequested else { return (false, []) }
            closeRequested = true
            closed = true
            pending = []
            let resumed = admitParkedLocked()
            lock.broadcast()
            return (takeDescriptorLocked(), resumed)
        }
        if closeNow { closeDescriptor() }
        resumed.forEach { $0.resume() }
    }

    private func closeDescriptor() {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// True (once) when ``close()`` was asked and no write is under way: the caller closes the descriptor.
    private func takeDescriptorLocked() -> Bool {
        guard closeRequested, !writing, !descriptorClosed else { return false }
        descriptorClosed = true
        return true
    }

    /// True once the descriptor's reader has gone.
    public var isClosed: Bool { lock.withLock { closed } }

    // MARK: Inside the lock

    /// Whether `count` bytes may be written now without waiting: on a socket always (what it does not
    /// take is queued, ``writeDirectly(_:)``); on a pipe when it surely takes them all (the reader only
    /// ever makes more room, and only this sink writes to it). Linux keeps a pipe in page slots, not
    /// bytes: an empty pipe takes up to its capacity; one holding bytes surely takes only a write of at
    /// most `PIPE_BUF` when a slot is free (`POLLOUT`), however few bytes it holds (a slot per small write).
    private func takesAtOnce(_ count: Int) -> Bool {
        if isSocket { return true }
        let capacity = abs(pipeCapacity.load(ordering: .relaxed))
        guard capacity > 0 else { return false }
        var unread: Int32 = 0
        guard ioctl(fd, UInt(FIONREAD), &unread) == 0 else { return false }
        if unread == 0 { return count <= capacity }
        guard count <= Int(PIPE_BUF) else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&poller, 1, 0) == 1 && poller.revents & Int16(POLLOUT) != 0
    }

    /// Whether `count` more bytes may be queued: nothing waits, or they fit under the limit.
    private func fitsLocked(_ count: Int) -> Bool {
        let queued = pending.count + inWrite
        return queued == 0 || queued + count <= limit
    }

    /// Queues `bytes` if they fit and no earlier answer waits; true when queued (or the output is gone).
    private func admitLocked(_ bytes: [UInt8]) -> Bool {
        if closed { return true }
        guard parked.isEmpty, fitsLocked(bytes.count) else { return false }
        queueLocked(bytes)
        if !writing { wakeLocked() }
        return true
    }

    /// Adds `bytes` to the queue; taken as they are when it is empty (a frame of megabytes is not copied).
    private func queueLocked(_ bytes: [UInt8]) {
        if pending.isEmpty {
            pending = bytes
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    /// Moves waiting answers into the queue while they fit; returns the tasks to resume.
    private func admitParkedLocked() -> [UnsafeContinuation<Void, Never>] {
        var resumed: [UnsafeContinuation<Void, Never>] = []
        var taken = 0
        while taken < parked.count, closed || fitsLocked(parked[taken].bytes.count) {
            if !closed { queueLocked(parked[taken].bytes) }
            resumed.append(parked[taken].continuation)
            taken += 1
        }
        parked.removeFirst(taken)
        return resumed
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

    // MARK: Writing

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
                inWrite = batch.count
                return batch
            }
            if batch.isEmpty { return }
            finishWrite(writeAll(batch))
            if isClosed { return }
        }
    }

    /// Ends a write: lets waiting answers in, wakes the writer and `flush`, reports a closed descriptor,
    /// and runs the room handler when pushes were refused and the queue is down to half the limit.
    private func finishWrite(_ ok: Bool) {
        let (resumed, handler, closeNow): ([UnsafeContinuation<Void, Never>], (@Sendable () -> Void)?, Bool) = lock.withLock {
            writing = false
            inWrite = 0
            if !ok {
                closed = true
                pending = []
            }
            let resumed = admitParkedLocked()
            var handler: (@Sendable () -> Void)?
            if refused, !closed, parked.isEmpty, pending.count <= limit / 2 {
                refused = false
                handler = roomHandler
            }
            wakeLocked()
            return (resumed, handler, takeDescriptorLocked())
        }
        if closeNow { closeDescriptor() }
        resumed.forEach { $0.resume() }
        if !ok { onClosed() }
        handler?()
    }

    /// Grows the pipe, once, before the first write of more than four times its size: its reader is
    /// then woken once a megabyte instead of once per 64 KiB (for a 7 MB answer, 7 hand-overs between
    /// writer and reader instead of 110, each a wait for the scheduler on a busy machine). Smaller
    /// frames leave it as it is: a few hand-overs cost little. Only the thread that writes calls it.
    private func growPipe(toTake count: Int) {
        let capacity = pipeCapacity.load(ordering: .relaxed)
        guard capacity > 0, count > 4 * capacity, capacity < Self.largePipeCapacity else { return }
        let grown = Int(fcntl(fd, Self.setPipeSize, Int32(Self.largePipeCapacity)))
        // The size stays as it was when the system refuses (a user's pipe pages over their limit).
        pipeCapacity.store(grown > 0 ? grown : -capacity, ordering: .relaxed)
    }

    /// Writes a frame outside the queue, by the thread that set `writing`. A socket takes what it has
    /// room for at once; the rest goes first into the queue for the writer thread, ahead of frames
    /// queued meanwhile.
    private func writeDirectly(_ bytes: [UInt8]) {
        guard isSocket else { return finishWrite(writeAll(bytes)) }
        let sent = bytes.withUnsafeBytes { buffer in
            SystemCall.retrying { send(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        }
        if sent == bytes.count { return finishWrite(true) }
        guard sent >= 0 || errno == EAGAIN || errno == EWOULDBLOCK else { return finishWrite(false) }
        let rest = bytes[max(0, sent)...]
        let closeNow: Bool = lock.withLock {
            writing = false
            inWrite = 0
            if !closed { pending = Array(rest) + pending }
            wakeLocked()
            return takeDescriptorLocked()
        }
        if closeNow { closeDescriptor() }
    }

    /// Writes every byte; false when the descriptor can take no more (EPIPE and other errors).
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        growPipe(toTake: bytes.count)
        return SystemCall.writeAll(fd, bytes)
    }
}
