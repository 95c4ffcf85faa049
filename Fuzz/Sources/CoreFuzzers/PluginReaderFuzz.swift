import FuzzSupport
import Jansson
import JSONRPC

/// What a plugin writes on its stdout, read by the host as the MCP client: the host has sent a request
/// (`tools/list`, id 1) and reads whatever comes back — answers, requests and notifications of the
/// plugin's own, garbage — through the same `MessageReader` and response matching `PluginSession` uses.
/// Byte 0 picks the chunking; the rest is the plugin's output.
///
/// Properties: it never traps or hangs; the waiting request ends exactly once, with the plugin's
/// answer or, when its output ends without one, an error; what the host writes back to the plugin is
/// well framed JSON-RPC 2.0.
enum PluginReaderFuzz: FuzzTarget {
    static let name = "plugin-reader"
    static let summary = "a plugin's stdout read by the host's MCP client side (responses to its requests)"
    static let maxLength = 4096

    /// The plugin can call no method of the host here: each of its requests gets `-32601`.
    static let dispatcher: Dispatcher = {
        do { return try MethodRegistry().freeze() } catch { fatalError("empty registry: \(error)") }
    }()

    /// What `Connection.response(to:)` throws for an id no request waits on.
    static let lostMessage = "no request 1 is waiting for an answer"

    static func run(_ input: [UInt8]) {
        guard !input.isEmpty else { return }
        let session = HostSession(dispatcher, framing: .ndjson)
        let connection = session.connection
        let id = blockingWait { try? await connection.startRequest(method: "tools/list", params: nil) }
        require(id == 1, "the first request got id \(String(describing: id))")
        let output = session.run(Chunking(Array(input[1...]), seed: input[0]))
        let answer: Result<JSONValue, ResponseError> = blockingWait {
            do { return .success(try await connection.response(to: 1)) } catch let error as ResponseError {
                return .failure(error)
            } catch {
                return .failure(.internalError("\(error)"))
            }
        }
        // The connection's own "no request" error means the request was settled twice or lost; the same
        // words in an error the plugin wrote itself are just its answer (the fuzzer found such a one).
        if case .failure(let error) = answer, error.message == lostMessage {
            let written = String(decoding: input, as: UTF8.self).contains(lostMessage)
            require(written, "the request was settled twice or lost: \(error.message)")
        }
        require(output.messages.count == 1 && output.messages[0]["method"] == "tools/list",
                "the host wrote other requests: \(output.messages.map { $0.jsonText() })")
    }
}
