#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging
import SystemCalls

/// Runs a JSON-RPC connection on this process's stdin and stdout until end of input, `exit`, a signal,
/// a closed stdout or the client's death, and returns the exit code.
///
/// - Important: call it before starting any other thread: it blocks SIGTERM, SIGINT and SIGHUP so that
///   one thread of its own takes them, which only holds for threads started afterwards.
///
/// Only frames reach stdout: the descriptor is moved aside for the connection and fd 1 is pointed at
/// stderr, so a stray `print` anywhere in the process cannot corrupt the stream.
public enum StdioHost {
    public static func run(
        options: HostOptions, logger: Logger,
        makeRegistry: (HostEnvironment) -> MethodRegistry,
        onConnection: (Connection) -> Void = { _ in }
    ) throws -> Int32 {
        sb_block_host_signals()
        signal(SIGPIPE, SIG_IGN)
        MallocUpkeep.start()
        let stop = StopSignal()
        watchParentProcess(stop: stop, logger: logger)
        try OSThread.detach(name: "sb-signals") { waitForSignals(stop: stop) }

        let wireFD = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard wireFD >= 0 else { throw HostError.stdoutUnavailable(errno) }
        dup2(STDERR_FILENO, STDOUT_FILENO)

        let environment = HostEnvironment(watchClientProcess: { pid in
            try ProcessWatcher.watch(pid: pid, logger: logger) {
                logger.info("client process \(pid) exited")
                stop.stop(.clientDied)
            }
        })
        let dispatcher = try makeRegistry(environment).freeze()
        let output = try FileDescriptorSink(fd: wireFD, limit: options.limits.maxOutputBytes) { stop.stop(.outputClosed) }
        let sink: any FrameSink = options.recorder.map { RecordingSink(wrapping: output, recorder: $0) } ?? output
        let connection = Connection(dispatcher: dispatcher, limits: options.limits, framing: options.framing, sink: sink, logger: logger)
        onConnection(connection)
        let frameTimeout = options.frameTimeoutMilliseconds
        let recorder = options.recorder
        try OSThread.detach(name: "sb-reader") {
            readInput(into: MessageReader(connection: connection), stop: stop, frameTimeoutMilliseconds: frameTimeout,
                      recorder: recorder)
        }

        let reason = stop.wait()
        logger.debug("stopping: \(reason)")
        return drain(connection, output: output, stop: stop, reason: reason, options: options, logger: logger)
    }

    /// Finishes in-flight requests within `drainTimeoutMilliseconds` — after end of input, `exit`, a
    /// signal or the client's death, even one that arrives while draining — then cancels what is left,
    /// flushes, and picks the exit code. A request that ignores its cancellation (a computation that
    /// never looks) does not hold the process: it ends with the request still running.
    private static func drain(_ connection: Connection, output: FileDescriptorSink, stop: StopSignal, reason first: StopReason,
                              options: HostOptions, logger: Logger) -> Int32 {
        let step: UInt64 = 100_000_000
        let grace = UInt64(options.drainTimeoutMilliseconds) * 1_000_000
        var deadline: UInt64?
        func escalate(_ reason: StopReason) -> Int32? {
            switch reason {
            case .outputClosed, .inputFailed:
                connection.cancelAll(heldWorkDeadline: monotonicNanoseconds() + 1_000_000_000)
                // A second for requests whose answers went out to begin what those promised.
                connection.waitUntilIdle(deadline: monotonicNanoseconds() + 1_000_000_000)
                finishPromisedWork(connection, logger: logger)
                return reason == .outputClosed ? 0 : 1
            case .signal, .clientDied:
                if deadline == nil { deadline = monotonicNanoseconds() + grace }
                connection.stopAccepting()
                return nil
            case .endOfInput, .exitRequested:
                // Nothing more is read: the drain time counts from here, however busy a request is.
                if deadline == nil { deadline = monotonicNanoseconds() + grace }
                return nil
            }
        }
        if let code = escalate(first) { return code }
        while !connection.waitUntilIdle(deadline: monotonicNanoseconds() + step) {
            if let later = stop.latestReason, later.isUrgent, let code = escalate(later) { return code }
            if let limit = deadline, monotonicNanoseconds() >= limit {
                let running = connection.inFlightCount
                if running > 0 { logger.warning("cancelling \(running) requests still running after \(options.drainTimeoutMilliseconds) ms") }
                if !connection.cancelAll(heldWorkDeadline: monotonicNanoseconds() + 1_000_000_000) {
                    logger.warning("cancelling while the after-answer work of a batch it completed still runs")
                }
                if !connection.waitUntilIdle(deadline: monotonicNanoseconds() + 1_000_000_000) {
                    let ignoring = connection.inFlightCount
                    if ignoring > 0 { logger.warning("exiting with \(ignoring) requests that ignored their cancellation") }
                    if !connection.abandonRunning(heldWorkDeadline: monotonicNanoseconds() + 1_000_000_000) {
                        logger.warning("exiting while the after-answer work of a batch they were in still runs")
                    }
                }
                break
            }
        }
        finishPromisedWork(connection, logger: logger)
        // Flush. A client that reads late still gets every answer made: the host waits while its end
        // is open and it reads, giving up once it has read nothing for ``idleReaderLimitSeconds``
        // (a client that waits for the host's exit before it reads). After a signal or the client's
        // death, a second more at most.
        var flushLimit: UInt64?
        var waited = false
        var queued = output.queuedByteCount
        var lastRead = monotonicNanoseconds()
        while !connection.flush(deadline: monotonicNanoseconds() + step) {
            if !waited {
                logger.info("waiting for the client to read the answers left before exiting")
                waited = true
            }
            if let later = stop.latestReason, later.isUrgent {
                if let code = escalate(later) { return code }
                if flushLimit == nil { flushLimit = monotonicNanoseconds() + 1_000_000_000 }
            }
            let now = monotonicNanoseconds()
            let left = output.queuedByteCount
            if left < queued { lastRead = now }
            queued = left
            if let flushLimit, now >= flushLimit {
                logger.warning("exiting before the client read every answer (\(stop.latestReason.map { "\($0)" } ?? "stopping")): \(left) bytes unread")
                break
            }
            if now - lastRead >= idleReaderLimitSeconds * 1_000_000_000 {
                logger.warning("exiting before the client read every answer: it read nothing for \(idleReaderLimitSeconds) s; \(left) bytes unread")
                break
            }
        }
        if case .exitRequested(let code) = first { return code }
        return 0
    }

    /// Waits for what handlers promised to do after their answers — a `chat.send` answered `pending`
    /// is stored, or fails and says so — also once the drain time is spent or the client's end is
    /// closed. Each is bounded by its store's own time-outs (SQLite's busy wait, PostgreSQL's
    /// deadlines); ``promisedWorkLimitSeconds`` only guards against one that breaks them.
    private static func finishPromisedWork(_ connection: Connection, logger: Logger) {
        let pending = connection.promisedWorkCount
        guard pending > 0 else { return }
        logger.info("waiting for \(pending) writes promised in answers (chat sends answered pending) before exiting")
        if !connection.waitForPromisedWork(deadline: monotonicNanoseconds() + promisedWorkLimitSeconds * 1_000_000_000) {
            logger.error("exiting with \(connection.promisedWorkCount) writes promised in answers still unfinished after \(promisedWorkLimitSeconds) s")
        }
    }

    /// The longest a host waits at exit for writes promised in answers.
    static let promisedWorkLimitSeconds: UInt64 = 120
    /// The longest a host waits at exit for a client that reads none of the answers left.
    static let idleReaderLimitSeconds: UInt64 = 60

    /// The input thread: reads stdin, feeds the reader, and reports end of input or `exit`.
    private static func readInput(into reader: MessageReader, stop: StopSignal, frameTimeoutMilliseconds: Int,
                                  recorder: FrameRecorder?) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if frameTimeoutMilliseconds > 0, reader.connection.framing == .lsp, reader.isMidMessage {
                var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, Int32(clamping: frameTimeoutMilliseconds)) == 0 {
                    reader.abandonPartialMessage()
                    continue
                }
            }
            let count = buffer.withUnsafeMutableBytes { buffer in SystemCall.retrying { read(STDIN_FILENO, buffer.baseAddress, buffer.count) } }
            if count < 0 {
                // A parent may hand over a non-blocking stdin: wait until it is readable, never spin.
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    _ = poll(&poller, 1, -1)
                    continue
                }
                stop.stop(.inputFailed(errno))
                return
            }
            if stop.isStopping { return }
            if count == 0 {
                reader.finishInput()
                stop.stop(reader.connection.requestedExitCode.map(StopReason.exitRequested) ?? .endOfInput)
                return
            }
            buffer.withUnsafeBytes { bytes in
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                recorder?.received(chunk)
                reader.receive(chunk)
            }
            if let code = reader.connection.requestedExitCode {
                stop.stop(.exitRequested(code))
                return
            }
        }
    }

    /// Takes SIGTERM, SIGINT and SIGHUP: the first drains and exits, a second exits at once.
    private static func waitForSignals(stop: StopSignal) {
        var received = 0
        while true {
            let number = sb_wait_host_signal()
            guard number > 0 else { continue }
            received += 1
            if received > 1 {
                // Said on stderr first: what the drain still waited for (writes promised in answers too) is abandoned.
                SystemCall.writeAll(STDERR_FILENO, Array("switchboard: a second signal \(number): exiting at once, without waiting for what still runs\n".utf8))
                _exit(128 + number)
            }
            stop.stop(.signal(number))
        }
    }

    /// Stops when the parent process ends. Not `PR_SET_PDEATHSIG`: that fires when the parent
    /// *thread* that spawned us ends, and clients often spawn from a worker thread that finishes.
    private static func watchParentProcess(stop: StopSignal, logger: Logger) {
        let parent = getppid()
        guard parent > 1 else { return }
        do {
            try ProcessWatcher.watch(pid: parent, logger: logger) {
                logger.info("parent process \(parent) exited")
                stop.stop(.clientDied)
            }
        } catch {
            logger.warning("cannot watch the parent process \(parent) (\(error)); relying on end of input")
        }
    }
}

enum HostError: Error, CustomStringConvertible {
    case stdoutUnavailable(Int32)

    var description: String {
        switch self {
        case .stdoutUnavailable(let code): "cannot use stdout (errno \(code))"
        }
    }
}
