import FuzzSupport
import Jansson
import JSONRPC
import SwitchboardHost

/// A whole input stream through a connection to the host's built-in methods: framing, parsing, the
/// envelope classifier (requests, notifications, responses, batches, invalid ones) and dispatch.
/// Byte 0 picks the framing (NDJSON, LSP, detected), byte 1 the chunking; the rest is the stream.
///
/// Properties: it never traps or hangs; everything written is well framed JSON-RPC 2.0 (``OutputCheck``),
/// with no internal error; and every request whose id is a plain integer is answered exactly once.
enum EnvelopeFuzz: FuzzTarget {
    static let name = "envelope"
    static let summary = "a byte stream through MessageReader to the host's built-in methods"
    static let maxLength = 4096

    static let dispatcher: Dispatcher = {
        do { return try MethodRegistry.hostMethods().freeze() } catch { fatalError("host methods: \(error)") }
    }()

    static func run(_ input: [UInt8]) {
        guard input.count >= 2 else { return }
        let framing: Framing? = [Framing.ndjson, .lsp, nil][Int(input[0] % 3)]
        let stream = Array(input[2...])
        let session = HostSession(dispatcher, framing: framing)
        let output = session.run(Chunking(stream, seed: input[1]))
        checkAnswers(output, stream: stream, framing: session.connection.framing)
    }

    /// Messages found by framing the input again: each single (not batched) message with an integer
    /// id that is not a response, and not nested too deep, must have exactly one answer if no other
    /// message used that id (invalid ones are answered too, with their id); unless `exit` came first,
    /// after which nothing is read.
    static func checkAnswers(_ output: OutputCheck, stream: [UInt8], framing: Framing?) {
        let limits = ConnectionLimits()
        var framer = Framer(framing: framing, maxMessageBytes: limits.maxMessageBytes)
        var ids: [Int64: Int] = [:]
        var stopped = false
        let count = { (event: FramerEvent) in
            guard case .message(let body) = event, !stopped, let message = try? JSONValue(parsing: Array(body)) else { return }
            if message["method"] == "exit" { stopped = true }
            guard let id = message["id"]?.int64Value, !isResponse(message), depth(message) < limits.maxNestingDepth else { return }
            ids[id, default: 0] += 1
        }
        stream.withUnsafeBytes { framer.consume($0, count) }
        framer.finish(count)
        guard !stopped else { return }
        for (id, count) in ids where count == 1 {
            let answers = output.responses.filter { $0["id"]?.int64Value == id }.count
            require(answers == 1, "request id \(id) was answered \(answers) times")
        }
    }

    /// A well-formed response (which is never answered).
    static func isResponse(_ message: JSONValue) -> Bool {
        message["jsonrpc"] == "2.0" && message["method"] == nil && (message["result"] == nil) != (message["error"] == nil)
    }

    static func depth(_ value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(depth).max() ?? 0)
        case .object(let object): 1 + (object.map { depth($0.1) }.max() ?? 0)
        default: 0
        }
    }
}
