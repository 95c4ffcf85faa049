import CSystemShims
import Glibc
import SystemCalls

/// A server started over two pipes: requests go to its stdin, frames come from its stdout.
///
/// Both pipe ends are non-blocking and one `poll` loop serves them, so the driver always drains the
/// server's stdout while it writes and full pipes cannot deadlock the two. `finish` closes stdin,
/// drains, and reaps the child with `wait4`, which gives its CPU time and peak RSS.
final class ServerProcess {
    let pid: pid_t
    let spawnedAt: UInt64
    private let input: Int32
    private let output: Int32
    let inbound = ByteBuffer()
    let outbound = ByteBuffer()
    private(set) var bytesWritten = 0
    private(set) var bytesRead = 0
    /// When the last `read` returned data: a frame's arrival time, as rpcbench takes it.
    private(set) var lastReadAt: UInt64 = 0
    /// When bytes last moved in either direction: a run stalls when this gets old.
    private(set) var lastProgressAt: UInt64
    private(set) var reachedEnd = false
    private(set) var writeFailed = false
    private(set) var inputClosed = false
    /// The server's own peak RSS in KB, sampled with `samplePeakRSS` while it runs.
    private(set) var peakRSSKilobytes: Int?
    /// Close stdin once everything queued is written (start-up runs).
    var closeInputWhenWritten = false
    private(set) var exit: ProcessExit?

    /// Spawns `command` (looked up in `PATH` when it has no slash) with default signal handling;
    /// its stderr is inherited, or appended to `stderrPath`.
    init(command: [String], stderrPath: String?) throws(LoadError) {
        var toServer: [Int32] = [-1, -1]
        var fromServer: [Int32] = [-1, -1]
        guard sb_pipe_cloexec(&toServer) == 0, sb_pipe_cloexec(&fromServer) == 0 else {
            throw LoadError("pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toServer[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromServer[1], 1)
        if let stderrPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        spawnedAt = monotonicNanoseconds()
        let result = posix_spawnp(&pid, command[0], &actions, &attributes, argv, environ)
        close(toServer[0])
        close(fromServer[1])
        guard result == 0 else {
            close(toServer[1])
            close(fromServer[0])
            throw LoadError("cannot start \(command[0]): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        input = toServer[1]
        output = fromServer[0]
        lastProgressAt = spawnedAt
        for descriptor in [input, output] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit {
        if exit == nil {
            kill(pid, SIGKILL)
            _ = finish(timeout: 1)
        }
    }

    /// Queues bytes for the server's stdin; `writeQueued` or `pump` sends them.
    func enqueue(_ bytes: [UInt8]) {
        outbound.append(bytes)
    }

    func enqueue(_ write: (ByteBuffer) -> Void) {
        write(outbound)
    }

    /// Writes as much of the queue as the pipe takes without blocking.
    func writeQueued() {
        while !inputClosed, !writeFailed, !outbound.isEmpty {
            let pending = outbound.unread
            let written = SystemCall.retrying { Glibc.write(input, pending.baseAddress, pending.count) }
            if written > 0 {
                outbound.consume(written)
                bytesWritten += written
                lastProgressAt = monotonicNanoseconds()
            } else if written < 0, errno == EAGAIN {
                return
            } else {
                writeFailed = true
                return
            }
        }
        if closeInputWhenWritten, outbound.isEmpty { closeInput() }
    }

    /// Reads everything the pipe holds now.
    func readAvailable() {
        var total = 0
        while !reachedEnd {
            let count = SystemCall.retrying { inbound.read(from: output) }
            if count > 0 {
                total += count
            } else if count < 0, errno == EAGAIN {
                break
            } else {
                reachedEnd = true
            }
        }
        if total > 0 {
            bytesRead += total
            lastReadAt = monotonicNanoseconds()
            lastProgressAt = lastReadAt
        }
    }

    /// The next complete message, read with jansson and consumed from the inbound buffer; `nil` while
    /// none is complete.
    func nextMessage(_ framing: Framing) throws(FramingError) -> Incoming? {
        while true {
            let bytes = inbound.unread
            guard let found = try framing.nextFrame(in: bytes) else { return nil }
            if found.body.isEmpty {
                inbound.consume(found.length)
                continue
            }
            let result = Incoming(UnsafeRawBufferPointer(rebasing: bytes[found.body]))
            inbound.consume(found.length)
            return result
        }
    }

    /// Reads the server's own memory high-water mark now (it must still run).
    func samplePeakRSS() {
        if let sample = processPeakRSSKilobytes(pid) { peakRSSKilobytes = max(sample, peakRSSKilobytes ?? 0) }
    }

    /// Drops what was read (a start-up run reading to the end).
    func discardInbound() { inbound.removeAll() }

    func closeInput() {
        guard !inputClosed else { return }
        close(input)
        inputClosed = true
    }

    /// Closes stdin, drains stdout until the server exits, and reaps it; after `timeout` seconds it gets
    /// SIGTERM, two seconds later SIGKILL.
    @discardableResult
    func finish(timeout: Double) -> ProcessExit {
        if let exit { return exit }
        closeInput()
        var deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        var terminated = false
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let reaped = SystemCall.retrying { wait4(pid, &status, WNOHANG, &usage) }
            if reaped == pid || reaped < 0 { break }
            let now = monotonicNanoseconds()
            if now > deadline {
                if terminated {
                    kill(pid, SIGKILL)
                    wait4(pid, &status, 0, &usage)
                    break
                }
                kill(pid, SIGTERM)
                terminated = true
                deadline = now + 2_000_000_000
                printError("the server did not exit after EOF; sent SIGTERM")
            }
            if reachedEnd {
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
                nanosleep(&pause, nil)
            } else {
                var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 1) > 0 {
                    readAvailable()
                    inbound.removeAll()
                }
            }
        }
        close(output)
        let result = ProcessExit(status: status, usage: usage, at: monotonicNanoseconds())
        exit = result
        return result
    }

    /// Waits up to `milliseconds` for any of `processes` to become readable (or writable, with
    /// something queued), then reads and writes what it can.
    static func pump(_ processes: [ServerProcess], milliseconds: Int32) {
        var descriptors: [pollfd] = []
        var owners: [ServerProcess] = []
        for process in processes {
            if !process.reachedEnd {
                descriptors.append(pollfd(fd: process.output, events: Int16(POLLIN), revents: 0))
                owners.append(process)
            }
            if !process.inputClosed, !process.writeFailed, !process.outbound.isEmpty {
                descriptors.append(pollfd(fd: process.input, events: Int16(POLLOUT), revents: 0))
                owners.append(process)
            }
        }
        guard !descriptors.isEmpty else { return }
        guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 else { return }
        for (descriptor, owner) in zip(descriptors, owners) where descriptor.revents != 0 {
            if descriptor.events == Int16(POLLOUT) { owner.writeQueued() } else { owner.readAvailable() }
        }
    }
}

/// How a server ended: its wait status and resource usage (CPU time, peak RSS).
struct ProcessExit {
    let status: Int32
    let usage: rusage
    let at: UInt64

    var cpuSeconds: Double { seconds(usage.ru_utime) + seconds(usage.ru_stime) }
    /// wait4's figure: at least the spawning driver's RSS, see `processPeakRSSKilobytes`.
    var waitPeakRSSKilobytes: Int { usage.ru_maxrss }
    /// `WIFEXITED`/`WEXITSTATUS`/`WTERMSIG` are macros Swift cannot import; decoded by hand.
    var succeeded: Bool { status & 0x7F == 0 && (status >> 8) & 0xFF == 0 }
    var description: String { status & 0x7F == 0 ? "exit \((status >> 8) & 0xFF)" : "signal \(status & 0x7F)" }
}

/// Why a run could not go on.
struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
