import Jansson
import JSONRPC
import Logging
import Synchronization
import Testing

/// Requests the host sends to its peer (as it will to plugins): answered by the peer's response,
/// failed at once when the peer's input ends.
@Suite("Requests to the peer", .timeLimit(.minutes(10)))
struct OutgoingRequestTests {
    /// A connection whose output is watched: `sent` resumes once the first frame is written.
    final class Peer: Sendable {
        let connection: Connection
        private let firstWrite = Mutex<(written: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        /// The sink reaches its peer weakly: the peer owns the connection, which owns the sink.
        private struct WeakPeer: Sendable { weak var peer: Peer? }

        init(logger: Logger = Logger(label: "test")) throws {
            let box = Mutex(WeakPeer())
            let sink = CollectingSink { _ in box.withLock { $0.peer }?.wrote() }
            connection = Connection(dispatcher: try MethodRegistry().freeze(), framing: .ndjson, sink: sink, logger: logger)
            box.withLock { $0.peer = self }
        }

        private func wrote() {
            let waiter = firstWrite.withLock { state in
                state.written = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        func sent() async {
            await withCheckedContinuation { continuation in
                let ready = firstWrite.withLock { state in
                    if !state.written { state.waiter = continuation }
                    return state.written
                }
                if ready { continuation.resume() }
            }
        }
    }

    @Test("a request to the peer is answered by the peer's response with the same id")
    func answered() async throws {
        let peer = try Peer()
        let reader = MessageReader(connection: peer.connection)
        let call = Task { try await peer.connection.sendRequest(method: "plugin.hello", params: ["x": 1]) }
        await peer.sent()
        Array(#"{"jsonrpc":"2.0","id":1,"result":{"hi":true}}"#.utf8 + [0x0A]).withUnsafeBytes { reader.receive($0) }
        #expect(try await call.value == ["hi": true])
    }

    @Test("a response whose id names no request of ours (\"1\" for 1) is dropped with a warning naming the id; the request still gets its own")
    func strayResponseIsLogged() async throws {
        let log = OutputBoundTests.LogLines()
        let peer = try Peer(logger: Logger(label: "test") { _ in log })
        let reader = MessageReader(connection: peer.connection)
        let call = Task { try await peer.connection.sendRequest(method: "plugin.hello", params: nil) }
        await peer.sent()
        Array(#"{"jsonrpc":"2.0","id":"1","result":{"wrong":true}}"#.utf8 + [0x0A]).withUnsafeBytes { reader.receive($0) }
        #expect(log.contains(#"dropped a response whose id "1" names no request of ours"#))
        Array(#"{"jsonrpc":"2.0","id":1,"result":{"hi":true}}"#.utf8 + [0x0A]).withUnsafeBytes { reader.receive($0) }
        #expect(try await call.value == ["hi": true])
    }

    @Test("a request to the peer fails at once when the peer's input ends, instead of waiting forever")
    func failsAtEndOfInput() async throws {
        let peer = try Peer()
        let reader = MessageReader(connection: peer.connection)
        let call = Task { try await peer.connection.sendRequest(method: "plugin.hello", params: nil) }
        await peer.sent()
        reader.finishInput()
        await #expect(throws: ResponseError.self) { _ = try await call.value }
        await #expect(throws: ResponseError.self) { _ = try await peer.connection.sendRequest(method: "late", params: nil) }
    }
}
