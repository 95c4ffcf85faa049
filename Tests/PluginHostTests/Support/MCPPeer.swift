#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Jansson
import JSONRPC
@testable import PluginHost
import Synchronization

/// A scripted MCP server in the test process, on the far side of three pipes the host reads and writes
/// as it would a plugin's stdio (``PluginSettings/attach``). Each start of the plugin is one ``Run``.
///
/// By default it is a well-behaved server: it answers `initialize` with ``Script/protocolVersion``,
/// `tools/list` page by page, `ping`, and `tools/call` with ``Script/onCall``; every message the host
/// sends lands in ``received``. ``Script/onMessage`` takes any message first, for servers that
/// misbehave. A run ends when the host closes its stdin (exit status 0), when the host signals it
/// (SIGTERM, SIGKILL: killed by that signal), or when the test ends it (``Run/end(_:)``: a crash).
final class MCPPeer: Sendable {
    struct Script: Sendable {
        var protocolVersion = "2025-11-25"
        var capabilities: JSONValue = ["tools": ["listChanged": true]]
        var serverInfo: JSONValue = ["name": "scripted", "version": "1.0.0"]
        /// Whether SIGTERM and SIGKILL end the run at once; false: the test ends it (what a process
        /// wrote before the signal reached it is still read).
        var endsOnSignal = true
        /// Tools per `tools/list` page; 0: all on one page.
        var pageSize = 0
        /// Takes every message first; returns true when it handled it (the defaults then do nothing).
        var onMessage: @Sendable (Run, JSONValue) -> Bool = { _, _ in false }
        /// Answers `tools/call`; by default the text of `arguments.text`, or "ok".
        var onCall: @Sendable (Run, JSONValue) -> Void = { run, request in
            let text = request["params"]?["arguments"]?["text"]?.stringValue ?? "ok"
            run.reply(to: request, result: ["content": [["type": "text", "text": .string(text)]]])
        }
    }

    let script: Script
    /// Every message the host sent, every run, in order.
    let received = Inbox<JSONValue>()
    /// Every signal the host sent to the plugin's process group.
    let signals = Inbox<Int32>()
    /// Each run, as it starts.
    let runs = Inbox<Run>()
    private let toolTable: Mutex<[JSONValue]>

    /// `echo {text: string}`, the tool every test can call.
    static let echoTool: JSONValue = [
        "name": "echo", "description": "Says the text back.",
        "inputSchema": ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"], "additionalProperties": false],
    ]

    init(script: Script = Script(), tools: [JSONValue] = [MCPPeer.echoTool]) {
        self.script = script
        toolTable = Mutex(tools)
    }

    var tools: [JSONValue] {
        get { toolTable.withLock { $0 } }
        set { toolTable.withLock { $0 = newValue } }
    }

    /// The latest run, once one started.
    func currentRun() async throws -> Run { try await runs.wait(for: "a run of the peer") { $0.last } }

    /// The first message of the host with `method`, after `skipping` earlier ones.
    func message(_ method: String, skipping: Int = 0) async throws -> JSONValue {
        try await received.wait(for: "\(method) #\(skipping + 1) from the host") { messages in
            let matching = messages.filter { $0["method"]?.stringValue == method }
            return matching.dropFirst(skipping).first
        }
    }

    /// Messages of the host with `method` so far.
    func count(_ method: String) -> Int { received.items.filter { $0["method"]?.stringValue == method }.count }

    /// For ``PluginSettings/attach``: three pipes, a reader thread on the host's end of "stdin", and the
    /// host's ends handed over as the plugin's process.
    func attach(_ manifest: PluginManifest) throws -> PluginProcess {
        var stdin: [Int32] = [0, 0], stdout: [Int32] = [0, 0], stderr: [Int32] = [0, 0]
        guard sb_pipe_cloexec(&stdin) == 0, sb_pipe_cloexec(&stdout) == 0, sb_pipe_cloexec(&stderr) == 0 else {
            throw PeerFailure("pipe: errno \(errno)")
        }
        let run = Run(peer: self, index: runs.items.count, input: stdin[0], output: stdout[1], errors: stderr[1])
        let signals = self.signals
        let endsOnSignal = script.endsOnSignal
        let process = PluginProcess.attached(inputFD: stdin[1], outputFD: stdout[0], errorFD: stderr[0]) { [weak run] signal in
            signals.append(signal)
            if endsOnSignal, signal == SIGTERM || signal == SIGKILL { run?.end(.signaled(signal)) }
        }
        run.process = process
        try OSThread.detach(name: "test-mcp-peer") { run.readInput() }
        runs.append(run)
        return process
    }

    fileprivate func handle(_ message: JSONValue, in run: Run) {
        received.append(message)
        if script.onMessage(run, message) { return }
        guard let method = message["method"]?.stringValue, message["id"] != nil else { return }
        switch method {
        case "initialize":
            run.reply(to: message, result: ["protocolVersion": .string(script.protocolVersion), "capabilities": script.capabilities,
                                            "serverInfo": script.serverInfo])
        case "tools/list":
            let all = tools
            let size = script.pageSize > 0 ? script.pageSize : max(1, all.count)
            let start = message["params"]?["cursor"]?.stringValue.flatMap { Int($0) } ?? 0
            var page: JSONObject = ["tools": .array(Array(all.dropFirst(start).prefix(size)))]
            if start + size < all.count { page["nextCursor"] = .string(String(start + size)) }
            run.reply(to: message, result: .object(page))
        case "ping":
            run.reply(to: message, result: [:])
        case "tools/call":
            script.onCall(run, message)
        default:
            run.send(["jsonrpc": "2.0", "id": message["id"] ?? .null, "error": ["code": -32601, "message": "Method not found"]])
        }
    }

    /// One start of the plugin: the peer's ends of its pipes.
    final class Run: @unchecked Sendable {
        let index: Int
        private let peer: MCPPeer
        private let input: Int32
        /// stdout and stderr, until the run ends.
        private let outputs: Mutex<(stdout: Int32, stderr: Int32)?>
        /// The host's side, to report the end to; set once by `attach` before the run starts.
        fileprivate var process: PluginProcess?
        /// How the run ended, once it has.
        let ended = Inbox<ExitStatus>()

        fileprivate init(peer: MCPPeer, index: Int, input: Int32, output: Int32, errors: Int32) {
            self.peer = peer
            self.index = index
            self.input = input
            outputs = Mutex((output, errors))
        }

        /// Writes one message as a line on the plugin's stdout.
        func send(_ message: JSONValue) { writeLine(message.jsonText()) }

        /// Writes `text` and a newline on stdout, as it is (garbage included).
        func writeLine(_ text: String) { write(Array((text + "\n").utf8), toStderr: false) }

        /// Writes `text` and a newline on stderr.
        func writeStderr(_ text: String) { write(Array((text + "\n").utf8), toStderr: true) }

        func reply(to request: JSONValue, result: JSONValue) {
            send(["jsonrpc": "2.0", "id": request["id"] ?? .null, "result": result])
        }

        func replyError(to request: JSONValue, code: Int64, message: String) {
            send(["jsonrpc": "2.0", "id": request["id"] ?? .null, "error": ["code": .integer(code), "message": .string(message)]])
        }

        func notify(_ method: String, params: JSONValue? = nil) {
            var message: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
            if let params { message["params"] = params }
            send(.object(message))
        }

        /// Ends the run as a process ends: the host learns its exit status, then its stdout and stderr close.
        func end(_ status: ExitStatus) {
            guard let fds = outputs.withLock({ current -> (stdout: Int32, stderr: Int32)? in
                defer { current = nil }
                return current
            }) else { return }
            process?.attachedPeerEnded(status)
            close(fds.stdout)
            close(fds.stderr)
            ended.append(status)
        }

        private func write(_ bytes: [UInt8], toStderr: Bool) {
            outputs.withLock { fds in
                guard let fds else { return }
                let fd = toStderr ? fds.stderr : fds.stdout
                var offset = 0
                while offset < bytes.count {
                    let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }

        /// Reads the host's messages line by line until it closes the plugin's stdin, then exits 0.
        fileprivate func readInput() {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            var line: [UInt8] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in buffer[..<count] {
                    guard byte == 0x0A else {
                        line.append(byte)
                        continue
                    }
                    if let message = try? JSONValue(parsing: line) { peer.handle(message, in: self) }
                    line.removeAll(keepingCapacity: true)
                }
            }
            close(input)
            end(.exited(code: 0))
        }
    }
}

struct PeerFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
