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

    /// Requests found by framing the input again: each with an integer id not used twice must have
    /// exactly one answer (unless `exit` came first, after which nothing is read).
    static func checkAnswers(_ output: OutputCheck, stream: [UInt8], framing: Framing?) {
        var framer = Framer(framing: framing, maxMessageBytes: ConnectionLimits().maxMessageBytes)
        var ids: [Int64: Int] = [:]
        var stopped = false
        stream.withUnsafeBytes { bytes in
            framer.consume(bytes) { event in
                guard case .message(let body) = event, !stopped, let message = try? JSONValue(parsing: Array(body)) else { return }
                for element in message.arrayValue ?? [message] {
                    if element["method"] == "exit" { stopped = true }
                    guard element["jsonrpc"] == "2.0", element["method"]?.stringValue != nil, let id = element["id"]?.int64Value,
                          element["result"] == nil, element["error"] == nil
                    else { continue }
                    ids[id, default: 0] += 1
                }
            }
        }
        guard !stopped else { return }
        for (id, count) in ids where count == 1 {
            let answers = output.responses.filter { $0["id"]?.int64Value == id }.count
            require(answers == 1, "request id \(id) was answered \(answers) times")
        }
    }
}
