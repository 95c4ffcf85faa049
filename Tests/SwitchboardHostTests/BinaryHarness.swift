#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Jansson
import SchemaTesting
import Synchronization
import Testing

// Runs the BUILT `switchboard` binary as a child process over real pipes (posix_spawn, no Foundation).
// Every read has a deadline (poll), so a broken host fails the test instead of hanging the suite.
// Every answer read is checked against the schema of the method it answers, from the binary's
// `rpc.discover` (DiscoveredSchemas.swift).
// Everything here is namespaced (`BinaryHarness`, `SpawnedHost`) so it cannot clash with helpers in
// the other test files of this target.

enum BinaryHarness {
    /// The framing the harness writes and expects back.
    enum Wire: String, Sendable, CustomTestStringConvertible {
        case ndjson, lsp
        var testDescription: String { rawValue }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// How a child process ended.
    enum Termination: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let number): "killed by signal \(number)"
            }
        }
    }

    /// What a one-shot run of the binary printed and how it ended.
    struct Run {
        var stdout: String
        var stderr: String
        var termination: Termination
    }

    /// Default deadline for any single wait. Only a hang guard, never a speed check: generous enough
    /// for a loaded 2-core machine (a first call may seed a database), it turns a hang into a failure.
    static let answerTimeout = 30_000

    // MARK: - Locating the binary

    /// `switchboard` next to the test bundle (the test target depends on the executable, so it is built).
    static let binaryPath: String = {
        if let override = getenv("SWITCHBOARD_BINARY") { return String(cString: override) }
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            candidates.append(directory(of: path) + "/switchboard")
        }
        if let first = CommandLine.arguments.first {
            candidates.append(directory(of: first) + "/switchboard")
        }
        return candidates.first { access($0, X_OK) == 0 } ?? candidates.first ?? "switchboard"
    }()

    private static func directory(of path: String) -> String {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        // Inside an .xctest bundle directory (macOS layout), the binary sits next to the bundle.
        if let bundle = components.firstIndex(where: { $0.hasSuffix(".xctest") }) {
            components = components[..<bundle]
        }
        return components.isEmpty ? "." : components.joined(separator: "/")
    }

    // MARK: - Frames

    static func frame(_ json: String, _ wire: Wire) -> [UInt8] {
        let body = Array(json.utf8)
        switch wire {
        case .ndjson: return body + [0x0A]
        case .lsp: return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }
    }

    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        if let params { return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# }
        return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"#
    }

    static func notification(_ method: String, _ params: String? = nil) -> String {
        if let params { return #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params)}"# }
        return #"{"jsonrpc":"2.0","method":"\#(method)"}"#
    }

    /// Checks the envelope of a response: jsonrpc 2.0, an id, exactly one of result/error, nothing else.
    static func expectWellFormedResponse(_ message: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let object = message.objectValue else {
            Issue.record("response is not an object: \(message)", sourceLocation: sourceLocation)
            return
        }
        #expect(object["jsonrpc"] == "2.0", "\(message)", sourceLocation: sourceLocation)
        #expect(object["id"] != nil, "no id in \(message)", sourceLocation: sourceLocation)
        #expect((object["result"] != nil) != (object["error"] != nil), "\(message)", sourceLocation: sourceLocation)
        let extra = object.keys.filter { !["jsonrpc", "id", "result", "error"].contains($0) }
        #expect(extra.isEmpty, "unexpected members \(extra) in \(message)", sourceLocation: sourceLocation)
    }

    static func errorCode(_ message: JSONValue) -> Int64? { message["error"]?["code"]?.int64Value }

    // MARK: - Time

    static func nowMilliseconds() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return spec.tv_sec * 1000 + spec.tv_nsec / 1_000_000
    }

    // MARK: - One-shot runs

    /// Runs the binary with `arguments`, writes `input` and closes stdin, reads both outputs to EOF.
    static func run(_ arguments: [String], input: [UInt8] = [], environment: [String: String?] = [:],
                    wire: Wire = .ndjson, raw: Bool = false, timeout: Int = answerTimeout) throws -> Run {
        let host = try SpawnedHost(arguments: arguments, wire: wire, environment: environment, raw: raw)
        try host.write(input)
        host.closeInput()
        try host.readToEndOfOutput(within: timeout)
        let termination = try host.waitForExit(within: timeout)
        return Run(stdout: String(decoding: host.stdoutBytes, as: UTF8.self),
                   stderr: String(decoding: host.stderrBytes, as: UTF8.self),
                   termination: termination)
    }

    /// A fresh folder `PREFIX-XXXXXX` in this test process's scratch folder (removed at exit).
    static func temporaryFolder(_ prefix: String) throws -> String {
        try TestScratch.folder(prefix)
    }

    // MARK: - Processes the harness does not talk to

    /// Spawns a plain helper (e.g. `sleep 30`) with stdio on /dev/null; returns its pid.
    static func spawnHelper(_ path: String, _ arguments: [String]) throws -> pid_t {
        try spawnLock.withLock { _ in try spawn(path: path, arguments: arguments, environment: [:], stdin: -1, stdout: -1, stderr: -1,
                  newProcessGroup: false) }
    }

    /// Records an issue when the caller, about to block its thread, is a task on Swift's cooperative
    /// pool: its suite lacks `.offCooperativePool` (a blocked pool thread holds up every other test).
    static func expectOffCooperativePool(sourceLocation: SourceLocation = #_sourceLocation) {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        if inTask && !ThreadPerJobExecutor.isCurrentThreadOwned {
            Issue.record("a blocking wait on the cooperative pool: give this suite the .offCooperativePool trait",
                         sourceLocation: sourceLocation)
        }
    }

    /// Waits until process `pid` (any process, not only a child) has ended.
    static func waitUntilGone(_ pid: pid_t, within milliseconds: Int) -> Bool {
        if milliseconds > 0 { expectOffCooperativePool() }
        let fd = sb_pidfd_open(pid)
        if fd < 0 { return errno == ESRCH }
        defer { close(fd) }
        let deadline = nowMilliseconds() + milliseconds
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = max(0, deadline - nowMilliseconds())
            let ready = poll(&poller, 1, Int32(remaining))
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { return false }
        }
    }

    /// The thread ids of a live process, from /proc/PID/task.
    static func threadIDs(of pid: pid_t) -> [String] {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(tasks) }
        var ids: [String] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { ids.append(name) }
        }
        return ids
    }

    /// Peak resident set size of a live process, in bytes (VmHWM from /proc).
    static func peakResidentBytes(of pid: pid_t) -> Int? {
        statusNumber("VmHWM", of: pid).map { $0 * 1024 }
    }

    /// How many threads a live process has (Threads from /proc).
    static func threadCount(of pid: pid_t) -> Int? { statusNumber("Threads", of: pid) }

    /// The number on line `field` of /proc/PID/status.
    private static func statusNumber(_ field: String, of pid: pid_t) -> Int? {
        let fd = open("/proc/\(pid)/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return Int(line.filter(\.isNumber))
    }

    /// Reaps a child the harness spawned, waiting at most `milliseconds`.
    @discardableResult
    static func reap(_ pid: pid_t, within milliseconds: Int) -> Termination? {
        guard waitUntilGone(pid, within: milliseconds) else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 { if errno != EINTR { return nil } }
        return termination(status)
    }

    static func termination(_ status: Int32) -> Termination {
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros; decode by hand.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    // MARK: - posix_spawn

    /// Starts `path` with the given descriptors as its stdio (-1: /dev/null), default signal handling and an
    /// empty signal mask. Only the three descriptors are passed on: every pipe the harness makes is O_CLOEXEC,
    /// so tests running in parallel cannot keep each other's pipes open.
    static func spawn(path: String, arguments: [String], environment: [String: String?],
                      stdin: Int32, stdout: Int32, stderr: Int32, newProcessGroup: Bool) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] {
            if source >= 0 {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var environmentTable: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environmentTable[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        // Tests decide the log level themselves.
        environmentTable["SWITCHBOARD_LOG_LEVEL"] = nil
        for (key, value) in environment { environmentTable[key] = value }

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environmentTable.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure("posix_spawn \(path) failed: \(String(cString: strerror(result)))") }
        return pid
    }

    /// A pipe whose both ends are close-on-exec. Call with `spawnLock` held: Glibc does not export pipe2
    /// to Swift, so between pipe() and fcntl() another thread's spawn could otherwise inherit the ends.
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure("pipe failed: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// A connected pair of Unix stream sockets, as libuv makes for a child's stdio: the first end is
    /// the test's, the second the child's (either way round works; the names follow ``makePipe()``).
    static func makeSocketPair() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw Failure("socketpair failed: errno \(errno)")
        }
        return (fds[0], fds[1])
    }

    /// Serialises making pipes and spawning, so no child inherits another test's pipe ends.
    static let spawnLock = Mutex(())

    /// Writes to a pipe whose reader has gone must fail with EPIPE, not kill the test process.
    static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN); return () }()
}

/// One running `switchboard` (or a shell wrapping it) connected to the test by three pipes.
///
/// Not thread-safe: one test drives it. Output is collected whenever the harness waits for anything,
/// stderr included, so a chatty host never blocks on a full pipe; input is written with the outputs
/// drained in the same poll loop, so pipelining thousands of requests cannot deadlock.
final class SpawnedHost {
    typealias Wire = BinaryHarness.Wire
    typealias Failure = BinaryHarness.Failure

    let pid: pid_t
    /// What the harness writes and expects back.
    var wire: Wire
    private(set) var stdoutBytes: [UInt8] = []
    private(set) var stderrBytes: [UInt8] = []
    /// Every message decoded from stdout so far, in order.
    private(set) var received: [JSONValue] = []
    private var delivered = 0
    private var decodeOffset = 0
    private var scanOffset = 0
    private let raw: Bool
    private var lineOffset = 0

    private var inputFD: Int32
    private var outputFD: Int32
    private var errorFD: Int32
    private var outputAtEOF = false
    private var errorAtEOF = false
    private var pendingInput: [UInt8] = []
    /// The host stopped reading its stdin (EPIPE).
    private(set) var inputBroken = false
    private(set) var termination: BinaryHarness.Termination?
    /// Every answer on stdout is checked against the schemas from the binary's `rpc.discover`: a
    /// result against its method's result schema (the ledger knows which method each id was sent
    /// with), an error against the JSON-RPC error object. A mismatch is a test issue.
    var checksAnswers: Bool
    /// Which method each request id written so far was sent with.
    let ledger = RequestLedger()
    /// Splits what the harness writes, to fill the ledger.
    private var outgoing = OutputSplitter()

    /// Spawns the binary (or `executable`) with `arguments`; `environment` adds (or, with nil, removes) variables.
    /// `raw`: stdout is not decoded as frames (for a shell wrapping the host); read it with `nextLine`.
    /// `checksAnswers`: see ``checksAnswers`` (off only for the harness's own `rpc.discover`).
    /// `nonBlockingInput`: the host's stdin is handed over with `O_NONBLOCK` set, as some parents do.
    init(arguments: [String] = [], wire: Wire = .ndjson, environment: [String: String?] = [:],
         executable: String = BinaryHarness.binaryPath, newProcessGroup: Bool = false, raw: Bool = false,
         checksAnswers: Bool = true, nonBlockingInput: Bool = false) throws {
        _ = BinaryHarness.ignoreSIGPIPE
        self.wire = wire
        self.raw = raw
        self.checksAnswers = checksAnswers && !raw
        let (spawned, input, output, errors) = try BinaryHarness.spawnLock.withLock { _ in
            let input = try BinaryHarness.makePipe()
            let output = try BinaryHarness.makePipe()
            let errors = try BinaryHarness.makePipe()
            if nonBlockingInput { _ = fcntl(input.read, F_SETFL, fcntl(input.read, F_GETFL) | O_NONBLOCK) }
            defer {
                close(input.read)
                close(output.write)
                close(errors.write)
            }
            do {
                let pid = try BinaryHarness.spawn(path: executable, arguments: arguments, environment: environment,
                                                  stdin: input.read, stdout: output.write, stderr: errors.write,
                                                  newProcessGroup: newProcessGroup)
                return (pid, input, output, errors)
            } catch {
                close(input.write)
                close(output.read)
                close(errors.read)
                throw error
            }
        }
        pid = spawned
        inputFD = input.write
        outputFD = output.read
        errorFD = errors.read
        _ = fcntl(inputFD, F_SETFL, fcntl(inputFD, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if termination == nil {
            kill(pid, SIGKILL)
            BinaryHarness.reap(pid, within: 5_000)
        }
        for fd in [inputFD, outputFD, errorFD] where fd >= 0 { close(fd) }
    }

    var stderrText: String { String(decoding: stderrBytes, as: UTF8.self) }
    var stdoutText: String { String(decoding: stdoutBytes, as: UTF8.self) }
    var isOutputAtEOF: Bool { outputAtEOF }

    // MARK: - Input

    /// Frames `json` in the current wire framing and writes it.
    func send(_ json: String, within milliseconds: Int = BinaryHarness.answerTimeout) throws {
        try write(BinaryHarness.frame(json, wire), within: milliseconds)
    }

    func send(_ json: [String], within milliseconds: Int = BinaryHarness.answerTimeout) throws {
        try write(json.flatMap { BinaryHarness.frame($0, wire) }, within: milliseconds)
    }

    /// Writes raw bytes, draining the host's outputs meanwhile; returns when all are in the pipe.
    func write(_ bytes: [UInt8], within milliseconds: Int = BinaryHarness.answerTimeout) throws {
        guard !bytes.isEmpty else { return }
        guard inputFD >= 0 else { throw Failure("stdin already closed") }
        if inputBroken { throw Failure("the host no longer reads its stdin (EPIPE)") }
        if checksAnswers {
            for frame in outgoing.split(bytes) {
                if let message = frame.value { ledger.recordOutgoing(message) }
            }
        }
        pendingInput += bytes
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while !pendingInput.isEmpty && !inputBroken {
            guard try pump(until: deadline) else {
                throw Failure("timed out writing: \(pendingInput.count) bytes still unwritten\(context)")
            }
        }
        if inputBroken { throw Failure("the host stopped reading its stdin (EPIPE)") }
    }

    func write(_ text: String, within milliseconds: Int = BinaryHarness.answerTimeout) throws {
        try write(Array(text.utf8), within: milliseconds)
    }

    /// Closes the host's stdin: end of input.
    func closeInput() {
        if inputFD >= 0 { close(inputFD) }
        inputFD = -1
        pendingInput.removeAll()
    }

    /// Closes the test's read end of the host's stdout, so its next write fails with EPIPE.
    func closeOutput() {
        if outputFD >= 0 { close(outputFD) }
        outputFD = -1
        outputAtEOF = true
    }

    func signal(_ number: Int32) {
        if termination == nil { kill(pid, number) }
    }

    // MARK: - Output

    /// The next message on stdout, waiting up to `milliseconds`; throws on timeout, EOF or a malformed frame.
    func nextMessage(within milliseconds: Int = BinaryHarness.answerTimeout) throws -> JSONValue {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while true {
            if delivered < received.count {
                delivered += 1
                return received[delivered - 1]
            }
            if outputAtEOF {
                try checkNoPartialFrame()
                throw Failure("stdout reached EOF while waiting for a message\(context)")
            }
            guard try pump(until: deadline) else {
                throw Failure("no message within \(milliseconds) ms\(context)")
            }
        }
    }

    /// In raw mode: the next line of stdout, without its newline.
    func nextLine(within milliseconds: Int = BinaryHarness.answerTimeout) throws -> String {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while true {
            if let newline = stdoutBytes[lineOffset...].firstIndex(of: 0x0A) {
                defer { lineOffset = newline + 1 }
                return String(decoding: stdoutBytes[lineOffset..<newline], as: UTF8.self)
            }
            if outputAtEOF { throw Failure("stdout reached EOF while waiting for a line\(context)") }
            guard try pump(until: deadline) else { throw Failure("no line within \(milliseconds) ms\(context)") }
        }
    }

    /// How much the host's stdout pipe holds now (`F_GETPIPE_SZ` on its read end).
    var outputPipeCapacity: Int32 { fcntl(outputFD, 1032) }

    /// Reads messages until one has `id` (compared as JSON); the others read meanwhile are returned with it.
    func response(to id: JSONValue, within milliseconds: Int = BinaryHarness.answerTimeout) throws
        -> (response: JSONValue, before: [JSONValue]) {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        var before: [JSONValue] = []
        while true {
            let message = try nextMessage(within: max(0, deadline - BinaryHarness.nowMilliseconds()))
            if message["method"] == nil, message["id"] == id { return (message, before) }
            before.append(message)
        }
    }

    /// Reads stdout until EOF and returns the messages not yet returned by `nextMessage`.
    @discardableResult
    func readToEndOfOutput(within milliseconds: Int = BinaryHarness.answerTimeout) throws -> [JSONValue] {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while !outputAtEOF {
            guard try pump(until: deadline) else {
                throw Failure("stdout not closed within \(milliseconds) ms\(context)")
            }
        }
        // stderr is closed by the same exit; collect the rest of it too (bounded).
        while !errorAtEOF, try pump(until: min(deadline, BinaryHarness.nowMilliseconds() + 2_000)) {}
        try checkNoPartialFrame()
        let rest = Array(received[delivered...])
        delivered = received.count
        return rest
    }

    /// Reads stdout until EOF, as ``readToEndOfOutput(within:)``, for long work that reports its progress on
    /// stdout or stderr (seeding): fails only when neither shows anything new for `milliseconds`, a hang
    /// guard that a loaded machine or a sanitizer slows the work down under, but never trips while it moves.
    @discardableResult
    func readToEndOfOutput(quietAtMost milliseconds: Int) throws -> [JSONValue] {
        var seen = stdoutBytes.count + stderrBytes.count
        var deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while !outputAtEOF {
            guard try pump(until: deadline) else {
                throw Failure("nothing new on stdout or stderr for \(milliseconds) ms\(context)")
            }
            let now = stdoutBytes.count + stderrBytes.count
            if now > seen {
                seen = now
                deadline = BinaryHarness.nowMilliseconds() + milliseconds
            }
        }
        return try readToEndOfOutput()
    }

    /// Sends `host.ping` with `id` as a marker and returns every message that arrived before its answer.
    /// The host answers in order, so anything that must not happen before the marker shows up here:
    /// the event-based way to assert that nothing more arrives.
    func messagesBeforeMarker(id: JSONValue = "marker", within milliseconds: Int = BinaryHarness.answerTimeout) throws -> [JSONValue] {
        let idText = id.jsonText()
        try send(#"{"jsonrpc":"2.0","id":\#(idText),"method":"host.ping"}"#, within: milliseconds)
        let (reply, before) = try response(to: id, within: milliseconds)
        if reply["result"] != "pong" { throw Failure("the marker \(idText) was not answered pong: \(reply)") }
        return before
    }

    /// Collects output for `milliseconds` and returns the messages that arrived.
    /// - Important: a fixed window proves nothing on a loaded machine; to show that something does not
    ///   happen, wait on an event instead (``messagesBeforeMarker(id:within:)``, progress, EOF, exit).
    func messages(during milliseconds: Int) throws -> [JSONValue] {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while try pump(until: deadline) {}
        let rest = Array(received[delivered...])
        delivered = received.count
        return rest
    }

    /// Waits for the process to end and reaps it.
    @discardableResult
    func waitForExit(within milliseconds: Int = BinaryHarness.answerTimeout) throws -> BinaryHarness.Termination {
        if let termination { return termination }
        BinaryHarness.expectOffCooperativePool()
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        let fd = sb_pidfd_open(pid)
        guard fd >= 0 else { throw Failure("pidfd_open(\(pid)) failed: errno \(errno)") }
        defer { close(fd) }
        while true {
            // Keep draining the outputs so the host never blocks on a full pipe while exiting.
            var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            if outputFD >= 0 && !outputAtEOF { pollers.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
            if errorFD >= 0 && !errorAtEOF { pollers.append(pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0)) }
            let remaining = deadline - BinaryHarness.nowMilliseconds()
            guard remaining > 0 else { throw Failure("process \(pid) still running after \(milliseconds) ms\(context)") }
            let ready = poll(&pollers, nfds_t(pollers.count), Int32(remaining))
            if ready < 0 && errno != EINTR { throw Failure("poll failed: errno \(errno)") }
            if pollers[0].revents != 0 { break }
            for poller in pollers.dropFirst() where poller.revents != 0 { readAvailable(poller.fd) }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { throw Failure("waitpid(\(pid)) failed: errno \(errno)") }
        }
        let result = BinaryHarness.termination(status)
        termination = result
        return result
    }

    /// Whether the process has already ended (without reaping it).
    var hasExited: Bool {
        if termination != nil { return true }
        return BinaryHarness.waitUntilGone(pid, within: 0)
    }

    // MARK: - The poll loop

    /// Reads what is left on stderr, to its end (once the host has exited, all it wrote).
    func readRestOfStderr(within milliseconds: Int = BinaryHarness.answerTimeout) {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while !errorAtEOF, (try? pump(until: deadline, readingOutput: false)) == true {}
    }

    /// Reads stderr only — stdout stays unread, so the host's output fills up — until it holds `text`.
    func waitForStderr(containing text: String, within milliseconds: Int = BinaryHarness.answerTimeout) throws {
        let deadline = BinaryHarness.nowMilliseconds() + milliseconds
        while !stderrText.contains(text) {
            if errorAtEOF { throw Failure("stderr reached EOF without \"\(text)\"\(context)") }
            guard try pump(until: deadline, readingOutput: false) else {
                throw Failure("stderr did not show \"\(text)\" within \(milliseconds) ms\(context)")
            }
        }
    }

    /// One poll round over stdin (if there is input to write), stdout (unless `readingOutput` is
    /// false) and stderr. Returns false when the deadline passed with nothing to do.
    private func pump(until deadline: Int, readingOutput: Bool = true) throws -> Bool {
        var pollers: [pollfd] = []
        if inputFD >= 0 && !pendingInput.isEmpty && !inputBroken {
            pollers.append(pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0))
        }
        if readingOutput, outputFD >= 0 && !outputAtEOF { pollers.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
        if errorFD >= 0 && !errorAtEOF { pollers.append(pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0)) }
        guard !pollers.isEmpty else { return false }
        let remaining = deadline - BinaryHarness.nowMilliseconds()
        guard remaining > 0 else { return false }
        BinaryHarness.expectOffCooperativePool()
        let ready = poll(&pollers, nfds_t(pollers.count), Int32(remaining))
        if ready < 0 {
            if errno == EINTR { return true }
            throw Failure("poll failed: errno \(errno)")
        }
        if ready == 0 { return false }
        for poller in pollers where poller.revents != 0 {
            if poller.fd == inputFD {
                writePending()
            } else {
                readAvailable(poller.fd)
            }
        }
        try decodeFrames()
        return true
    }

    private func writePending() {
        let written = pendingInput.withUnsafeBytes { Glibc.write(inputFD, $0.baseAddress, $0.count) }
        if written > 0 {
            pendingInput.removeFirst(written)
        } else if written < 0 && errno == EPIPE {
            inputBroken = true
            pendingInput.removeAll()
        }
    }

    private func readAvailable(_ fd: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            if fd == outputFD { stdoutBytes += chunk[..<count] } else { stderrBytes += chunk[..<count] }
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            if fd == outputFD { outputAtEOF = true } else { errorAtEOF = true }
        }
    }

    // MARK: - Decoding stdout strictly

    /// Turns complete frames into messages. Anything that is not a valid frame of the expected framing
    /// holding one JSON object or array fails the test: stdout must carry frames only.
    private func decodeFrames() throws {
        if raw { return }
        while decodeOffset < stdoutBytes.count {
            switch wire {
            case .ndjson:
                // Resume the newline search where the last one stopped: a huge line stays linear.
                guard let newline = stdoutBytes[max(decodeOffset, scanOffset)...].firstIndex(of: 0x0A) else {
                    scanOffset = stdoutBytes.count
                    return
                }
                let line = Array(stdoutBytes[decodeOffset..<newline])
                decodeOffset = newline + 1
                try accept(line)
            case .lsp:
                let rest = stdoutBytes[decodeOffset...]
                guard let end = rest.firstRange(of: [0x0D, 0x0A, 0x0D, 0x0A]) else {
                    if rest.count > 200 { throw Failure("no LSP header end in \(String(decoding: rest.prefix(80), as: UTF8.self))") }
                    return
                }
                let header = String(decoding: stdoutBytes[decodeOffset..<end.lowerBound], as: UTF8.self)
                var length: Int?
                for line in header.split(separator: "\r\n", omittingEmptySubsequences: false) {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2 else { throw Failure("malformed header line \"\(line)\" on stdout") }
                    if parts[0].lowercased() == "content-length" {
                        let value = parts[1].trimmingPrefix(" ")
                        guard let parsed = Int(value) else { throw Failure("bad Content-Length \"\(value)\" on stdout") }
                        length = parsed
                    }
                }
                guard let length else { throw Failure("header without Content-Length on stdout: \(header)") }
                let bodyStart = end.upperBound
                guard stdoutBytes.count - bodyStart >= length else { return }
                decodeOffset = bodyStart + length
                try accept(Array(stdoutBytes[bodyStart..<decodeOffset]))
            }
        }
    }

    private func accept(_ body: [UInt8]) throws {
        let text = String(decoding: body, as: UTF8.self)
        let message: JSONValue
        do {
            message = try JSONValue(parsing: body)
        } catch {
            throw Failure("stdout carried something that is not a JSON frame: \(text.prefix(200)) (\(error))")
        }
        guard message.objectValue != nil || message.arrayValue != nil else {
            throw Failure("stdout frame is neither an object nor an array: \(text.prefix(200))")
        }
        received.append(message)
        if checksAnswers { DiscoveredSchemas.binary.expectValidAnswers(in: message, ledger: ledger) }
    }

    private func checkNoPartialFrame() throws {
        if !raw, decodeOffset < stdoutBytes.count {
            let rest = String(decoding: stdoutBytes[decodeOffset...].prefix(200), as: UTF8.self)
            throw Failure("stdout ended inside a frame: \(rest)")
        }
    }

    private var context: String {
        let out = String(decoding: stdoutBytes.suffix(300), as: UTF8.self)
        let err = String(decoding: stderrBytes.suffix(600), as: UTF8.self)
        return "\n  (pid \(pid); last stdout: \(out.debugDescription); last stderr: \(err.debugDescription))"
    }
}
