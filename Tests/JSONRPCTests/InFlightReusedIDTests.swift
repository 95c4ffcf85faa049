import Jansson
import JSONRPC
import Testing

/// Requests in flight are found by id also when a client reuses one: `$/cancelRequest` reaches each
/// still running with it, and none that has been answered.
@Suite("In-flight requests with a reused id")
struct InFlightReusedIDTests {
    typealias Peer = DeferredAnswerTests.Peer

    @Test("a cancel reaches every request still running with the id, in order")
    func cancelReachesEach() throws {
        let peer = try Peer(onCancel: true)
        peer.receive(Array(repeating: #"{"jsonrpc":"2.0","id":5,"method":"test.later"}"#, count: 3)
            + [#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}"#])
        #expect(peer.written.count == 3)
        #expect(peer.written.allSatisfy { $0["id"] == 5 && $0["error"]?["code"] == -32800 })
        #expect(peer.connection.inFlightCount == 0)
    }

    @Test("an answered request leaves the others with its id in flight, whichever was first")
    func answeredOneLeavesTheRest() throws {
        let peer = try Peer(onCancel: true)
        peer.receive(Array(repeating: #"{"jsonrpc":"2.0","id":"x","method":"test.later"}"#, count: 3))
        let pending = peer.pending
        try #require(pending.count == 3)
        pending[1].succeed(JanssonValue.string("second"))
        pending[0].succeed(JanssonValue.string("first"))
        #expect(peer.connection.inFlightCount == 1)
        peer.receive([#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"x"}}"#])
        #expect(peer.written.map { $0["result"] ?? $0["error"]?["code"] } == ["second", "first", -32800])
        #expect(peer.connection.inFlightCount == 0)
    }

    @Test("a cancellation sent as a request is answered: null when it names a request id, else -32602 naming the member")
    func cancellationAsRequest() throws {
        let peer = try Peer(onCancel: true)
        peer.receive([#"{"jsonrpc":"2.0","id":1,"method":"$/cancelRequest","params":{}}"#,
                      #"{"jsonrpc":"2.0","id":2,"method":"notifications/cancelled","params":{"requestId":[1]}}"#,
                      #"{"jsonrpc":"2.0","id":3,"method":"$/cancelRequest","params":{"id":9}}"#,
                      #"{"jsonrpc":"2.0","id":4,"method":"notifications/cancelled"}"#])
        #expect(peer.written.map { $0["id"] } == [1, 2, 3, 4])
        #expect(peer.written.map { $0["error"]?["data"]?["field"] } == ["id", "requestId", nil, "requestId"])
        #expect(peer.written[2]["result"] == .null)
    }

    @Test("each cancellation reads its own member first: MCP's requestId over an id beside it, LSP's id over a requestId")
    func ownMemberFirst() throws {
        let peer = try Peer(onCancel: true)
        peer.receive([#"{"jsonrpc":"2.0","id":5,"method":"test.later"}"#, #"{"jsonrpc":"2.0","id":6,"method":"test.later"}"#,
                      #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"id":6,"requestId":5}}"#])
        #expect(peer.written.map { $0["id"] } == [5])
        peer.receive([#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":6,"requestId":5}}"#])
        #expect(peer.written.map { $0["id"] } == [5, 6])
        #expect(peer.written.allSatisfy { $0["error"]?["code"] == -32800 })
    }
}
