import Jansson
import JSONRPC
import Logging
import SwitchboardHost
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The interactive prompt `switchboard` opens when stdin is a terminal: a person types
/// `inbox.list {"limit": 3}` or `inbox.list limit=3` and reads the answer, pretty-printed; pushed
/// notifications show as they arrive, above the line being typed.
///
/// Requests go through the same connection and dispatcher as stdio, in this process.
///
///     let code = try TerminalPrompt(dispatcher: dispatcher, logger: logger, style: .fromEnvironment()).run()
public final class TerminalPrompt {
    private let dispatcher: Dispatcher
    private let limits: ConnectionLimits
    private let logger: Logger
    private let style: PromptStyle
    private let recorder: FrameRecorder?
    private var nextID: Int64 = 1

    /// With a `recorder`, every request typed and every frame shown are recorded, as `--record` does on stdio.
    /// The prompt's connection enforces (and `initialize` reports) `limits`, as stdio's does.
    public init(dispatcher: Dispatcher, limits: ConnectionLimits = ConnectionLimits(), logger: Logger, style: PromptStyle,
                recorder: FrameRecorder? = nil) {
        self.dispatcher = dispatcher
        self.limits = limits
        self.logger = logger
        self.style = style
        self.recorder = recorder
    }

    /// Runs until `quit`, Ctrl-D, SIGTERM/SIGHUP (which cancel what runs) or the terminal closes; returns
    /// the exit code. Ctrl-C cancels what runs or drops the line being typed.
    /// `onConnection` sees the prompt's connection before the first request (plugins push to it).
    public func run(onConnection: (Connection) -> Void = { _ in }) throws -> Int32 {
        let highlighter = JSONHighlighter(colour: style.colour)
        let output = try PromptOutput(highlighter: highlighter)
        let sink: any FrameSink = recorder.map { RecordingSink(wrapping: output, recorder: $0) } ?? output
        let connection = Connection(dispatcher: dispatcher, limits: limits, framing: .ndjson, sink: sink, logger: logger)
        onConnection(connection)
        let reader = MessageReader(connection: connection)
        let catalog = MethodCatalog(openRPC: RPCDiscover.document(for: dispatcher, catalog: .embedded))
        writeAll("switchboard: type a method and its params (help lists them, Tab completes, quit leaves)\n")
        // \u{1} brackets what libedit must not count as printed (the colour codes).
        let promptText = style.colour ? "\u{1}\u{1B}[1m\u{1}switchboard>\u{1}\u{1B}[0m\u{1} " : "switchboard> "
        let signals = try PromptSignals()
        var interrupted = false  // Ctrl-C was the last key
        let editor = LineEditor(prompt: promptText, historyPath: style.historyPath) { before, word in
            Completion(before: before, word: word, catalog: catalog)
        }
        defer {
            editor.close()
            reader.finishInput()
            connection.waitUntilIdle(deadline: monotonicNanoseconds() + 5_000_000_000)
            // What answered while leaving (a request still running at Ctrl-D or quit) is shown too.
            for text in output.take() { writeAll(text + "\n") }
        }
        while true {
            var pollers = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: output.wakeRead, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: signals.readEnd, events: Int16(POLLIN), revents: 0)]
            if SystemCall.retrying({ poll(&pollers, 3, -1) }) < 0 { return 1 }
            for text in output.take() { editor.printAbove(text) }
            for number in signals.take() {
                switch number {
                case SIGINT:
                    interrupt(editor: editor, reader: reader, output: output, again: interrupted)
                    interrupted = true
                case SIGWINCH: editor.resize()
                default:
                    connection.cancelAll(heldWorkDeadline: monotonicNanoseconds() + 1_000_000_000)
                    writeAll("\n")
                    return 0
                }
            }
            let events = pollers[0].revents
            guard events != 0 else { continue }
            if events & Int16(POLLIN) != 0 {
                interrupted = false
                editor.readAvailable()
            }
            let lines = editor.takeLines()
            // The terminal hung up: nothing more will be typed.
            if lines.isEmpty, events & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return 0 }
            guard !lines.isEmpty else { continue }
            editor.suspend()
            for line in lines {
                guard let line, handle(line, editor: editor, reader: reader, output: output, catalog: catalog,
                                       highlighter: highlighter) else { return 0 }
            }
            // Answers made at once (host.ping, a -32601) show before the next prompt.
            for text in output.take() { writeAll(text + "\n") }
            editor.resume()
        }
    }

    /// Ctrl-C, as in a shell or psql: cancels the requests still running (their `-32800` answers show as
    /// they come) or, with none, drops the line being typed; it never leaves (quit and Ctrl-D do), and
    /// says so when pressed `again` with nothing typed in between.
    private func interrupt(editor: LineEditor, reader: MessageReader, output: PromptOutput, again: Bool) {
        let pending = output.pending()
        guard pending.isEmpty else {
            for id in pending {
                let cancel: JSONObject = ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": .object(["id": .integer(id)])]
                send(cancel, to: reader)
            }
            editor.printAbove("^C cancelling \(pending.count == 1 ? "the request" : "\(pending.count) requests") still running")
            return
        }
        editor.suspend()
        writeAll(again ? "^C (quit or Ctrl-D leaves)\n" : "^C\n")
        editor.resume()
    }

    /// Acts on one typed line; false to leave.
    private func handle(_ line: String, editor: LineEditor, reader: MessageReader, output: PromptOutput,
                        catalog: MethodCatalog, highlighter: JSONHighlighter) -> Bool {
        let command = PromptCommand(line: line)
        if command != .empty { editor.remember(command.historyText(of: line)) }
        switch command {
        case .empty:
            break
        case .quit:
            return false
        case .help(let prefix):
            writeAll(catalog.helpText(prefix: prefix, highlighter: highlighter) + "\n")
        case .invalid(let reason):
            writeAll(highlighter.paint(reason, "31") + "\n")
        case .call(let method, let params):
            var request: JSONObject = ["jsonrpc": "2.0", "id": .integer(nextID), "method": .string(method)]
            if let params { request["params"] = params }
            output.sent(nextID)
            nextID += 1
            send(request, to: reader)
        }
        return true
    }

    /// Hands `message` to the connection as if it had been typed as JSON-RPC (and records it).
    private func send(_ message: JSONObject, to reader: MessageReader) {
        let frame = Array(JSONValue.object(message).jsonText().utf8) + [0x0A]
        frame.withUnsafeBytes { bytes in
            recorder?.received(bytes)
            reader.receive(bytes)
        }
    }
}

/// How the prompt looks and where it keeps its history.
public struct PromptStyle: Sendable {
    /// ANSI colours in answers and the prompt.
    public var colour: Bool
    /// The history file; `nil` keeps no history.
    public var historyPath: String?

    public init(colour: Bool, historyPath: String?) {
        self.colour = colour
        self.historyPath = historyPath
    }

    /// Colour unless `NO_COLOR` is set (to anything but "") or stdout is not a terminal; history under
    /// `$XDG_STATE_HOME/switchboard/history` (`~/.local/state/…` without it), its folder made if missing.
    public static func fromEnvironment() -> PromptStyle {
        let noColour = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        return PromptStyle(colour: !noColour && isatty(STDOUT_FILENO) != 0, historyPath: historyFile())
    }

    private static func historyFile() -> String? {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        guard let state = environment("XDG_STATE_HOME") ?? environment("HOME").map({ $0 + "/.local/state" }) else { return nil }
        var folder = ""
        for component in (state + "/switchboard").split(separator: "/") {
            folder += "/" + component
            mkdir(folder, 0o700)
        }
        return folder + "/history"
    }
}
