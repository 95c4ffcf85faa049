import Jansson
@testable import switchboard_load
import Testing

/// The requests the driver writes: one template, each request with its own id (and token in push runs).
@Suite("switchboard-load: requests")
struct LoadRequestTests {
    /// The body of the one frame in `buffer`.
    static func body(_ buffer: ByteBuffer, _ framing: Framing) throws -> JanssonValue {
        let frame = try #require(try framing.nextFrame(in: buffer.unread))
        #expect(frame.length == buffer.count)
        return try JSONParser.parse(UnsafeRawBufferPointer(rebasing: buffer.unread[frame.body]))
    }

    @Test("a request carries its id, the method and the params, in both framings", arguments: Framing.allCases)
    func request(framing: Framing) throws {
        let template = RequestTemplate(method: "feed.list", params: #"{"limit":50}"#, framing: framing)
        for id: UInt64 in [1, 9, 10, 1234567890123] {
            let buffer = ByteBuffer()
            template.write(id: id, into: buffer)
            let request = try Self.body(buffer, framing)
            #expect(request.view["id"]?.int64 == Int64(id))
            #expect(request.view["method"]?.string == "feed.list")
            #expect(request.view["params"]?["limit"]?.int64 == 50)
            #expect(request.view["jsonrpc"]?.string == "2.0")
        }
    }

    @Test("each %ID% in the params becomes the request's token; a method is escaped")
    func token() throws {
        let template = RequestTemplate(method: #"a"b"#, params: #"{"x":"%ID%","y":["%ID%"]}"#, framing: .lsp)
        let buffer = ByteBuffer()
        template.write(id: 7, token: "run-7", into: buffer)
        let request = try Self.body(buffer, .lsp)
        #expect(request.view["method"]?.string == #"a"b"#)
        #expect(request.view["params"]?["x"]?.string == "run-7")
        #expect(request.view["params"]?["y"]?[0]?.string == "run-7")
    }

    @Test("answers are told apart: result, error, notification, a request of the server, not JSON-RPC")
    func incoming() {
        func kind(_ text: String) -> String {
            let incoming = Array(text.utf8).withUnsafeBytes { Incoming($0) }
            switch incoming.kind {
            case .response(let id, let hasResult): return "response \(id.map(String.init) ?? "nil") \(hasResult)"
            case .notification(let method): return "notification \(method)"
            case .serverRequest: return "request"
            case .malformed: return "malformed"
            }
        }
        #expect(kind(#"{"jsonrpc":"2.0","id":3,"result":null}"#) == "response 3 true")
        #expect(kind(#"{"jsonrpc":"2.0","id":"a","error":{"code":1}}"#) == "response nil false")
        #expect(kind(#"{"jsonrpc":"2.0","method":"chat.message","params":{}}"#) == "notification chat.message")
        #expect(kind(#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#) == "request")
        #expect(kind(#"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#) == "malformed")
        #expect(kind("[1]") == "malformed")
        #expect(kind("{") == "malformed")
    }
}
