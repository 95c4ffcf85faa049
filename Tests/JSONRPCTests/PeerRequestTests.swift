import Jansson
import JSONRPC
import Logging
import Testing

/// Requests whose id the caller knows (``Connection/startRequest(method:params:)``), so a time-out or a
/// cancellation can fail them at once and name them to the peer; and a close that fails what waits with
/// a given reason (a plugin's crash).
@Suite("Requests to the peer, by id", .timeLimit(.minutes(10)))
struct PeerRequestTests {
    static func connection() throws -> (Connection, MessageReader) {
        let connection = Connection(dispatcher: try MethodRegistry().freeze(), framing: .ndjson, sink: CollectingSink(), logger: Logger(label: "test"))
        return (connection, MessageReader(connection: connection))
    }

    @Test("the answer to a started request is waited for by id, also when it came first")
    func answered() async throws {
        let (connection, reader) = try Self.connection()
        let id = try await connection.startRequest(method: "tools/call", params: nil)
        Array(#"{"jsonrpc":"2.0","id":\#(id),"result":7}"#.utf8 + [0x0A]).withUnsafeBytes { reader.receive($0) }
        #expect(try await connection.response(to: id) == 7)
    }

    @Test("an abandoned request fails at once with the given error, and its late answer is dropped")
    func abandoned() async throws {
        let (connection, reader) = try Self.connection()
        let id = try await connection.startRequest(method: "tools/call", params: nil)
        let waiting = Task { try await connection.response(to: id) }
        connection.abandonRequest(id, with: .cancelled)
        await #expect(throws: ResponseError.cancelled) { _ = try await waiting.value }
        Array(#"{"jsonrpc":"2.0","id":\#(id),"result":7}"#.utf8 + [0x0A]).withUnsafeBytes { reader.receive($0) }
        let next = try await connection.startRequest(method: "tools/call", params: nil)
        #expect(next != id)
    }

    @Test("closing fails every waiting request with the reason given, and later ones too")
    func closedWithAReason() async throws {
        let (connection, _) = try Self.connection()
        let id = try await connection.startRequest(method: "tools/call", params: nil)
        let crashed = ResponseError(code: ErrorCode(rawValue: -32070), message: "crashed")
        connection.closeOutgoing(failing: crashed)
        await #expect(throws: crashed) { _ = try await connection.response(to: id) }
        await #expect(throws: ResponseError.self) { _ = try await connection.startRequest(method: "late", params: nil) }
    }
}
