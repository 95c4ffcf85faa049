import Jansson
import Testing

/// A lone UTF-16 surrogate escape (`"\ud83d"`, a string cut inside an emoji by `JSON.stringify`) is
/// grammatical JSON that stands for no character: a client's request holding one is answered with its
/// id, `-32602` naming the member inside `params`, else `-32600`; never a parse error with id `null`.
@Suite("Lone surrogate escapes from a client", .offCooperativePool)
struct LoneSurrogateTests {
    @Test("inside params: -32602 with the request's id, naming the member and quoting the escape", arguments: [
        (#"{"text":"cut \ud83d"}"#, "text", #"\ud83d"#),
        (#"{"a":[1,{"b":"\udcff x"}]}"#, "a[1].b", #"\udcff"#),
        (#"{"k\ud800":1}"#, "k\u{FFFD}", #"\ud800"#),
    ])
    func inParams(params: String, field: String, got: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":7,"method":"host.echo","params":\#(params)}"#)
        let error = expectError(try await host.reply(to: 7), id: 7, code: -32602)
        #expect(error["data"]?["field"] == .string(field))
        #expect(error["data"]?["got"] == .string(got))
        #expect(error["message"]?.stringValue?.contains("lone UTF-16 surrogate escape") == true, "\(error)")
    }

    @Test("outside params (the method, a member name, another member): -32600 with the id", arguments: [
        #"{"jsonrpc":"2.0","id":8,"method":"host.ping\ud83d"}"#,
        #"{"jsonrpc":"2.0","id":8,"method":"host.ping","x\udcff":1}"#,
        #"{"jsonrpc":"2.0","id":8,"method":"host.ping","extra":["\ud83d"]}"#,
    ])
    func outsideParams(text: String) async throws {
        let host = try Harness()
        try await host.send(text)
        let error = expectError(try await host.reply(to: 8), id: 8, code: -32600)
        #expect(error["message"]?.stringValue?.contains("lone UTF-16 surrogate escape") == true, "\(error)")
    }

    @Test("an id that holds one cannot be echoed: -32600 with id null")
    func inTheID() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":"a\ud83d","method":"host.ping"}"#)
        let frame = try await host.frame(0)
        expectError(frame, id: nil, code: -32600)
        #expect(frame.rawID == "null")
    }

    @Test("a pair, and an escaped backslash before u, are ordinary text")
    func pairsPass() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":9,"method":"host.echo","params":{"t":"\ud83d\ude00 \\ud83d"}}"#)
        let frame = try await host.reply(to: 9)
        #expect(frame.result?["t"] == "\u{1F600} \\ud83d", "\(frame.text)")
    }

    @Test("in a batch only the element holding one fails; a notification holding one is not answered")
    func batch() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","id":2,"method":"host.echo","params":{"t":"\ud83d"}},{"jsonrpc":"2.0","id":3,"method":"host.ping\udcff"},{"jsonrpc":"2.0","method":"host.echo","params":{"t":"\ud83d"}}]"#)
        let frame = try await host.frame(0)
        let replies = try #require(frame.value?.arrayValue)
        try #require(replies.count == 3, "\(frame.text)")
        #expect(replies[0]["result"] == "pong")
        #expect(expectErrorValue(replies[1], id: 2, code: -32602)["data"]?["field"] == "t")
        expectErrorValue(replies[2], id: 3, code: -32600)
    }

    @Test("text that is not JSON for another reason is still -32700")
    func stillParseError() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":4,"method":"host.echo","params":{"t":"\ud83d"}"#)
        expectError(try await host.frame(0), id: nil, code: -32700)
    }
}

@Suite("Lone surrogate escapes, against the binary", .serialized, .offCooperativePool)
struct BinaryLoneSurrogateTests {
    @Test("chat.send with a text cut inside an emoji: -32602 naming params.text with its id, and nothing stored, in both framings",
          arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func chatSend(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"], wire: wire)
        try host.send(#"{"jsonrpc":"2.0","id":1,"method":"chat.send","params":{"roomId":"grp-team","text":"cut \ud83d","clientMessageId":"c1"}}"#)
        let reply = try host.nextMessage()
        #expect(reply["id"] == 1, "\(reply)")
        #expect(BinaryHarness.errorCode(reply) == -32602)
        #expect(reply["error"]?["data"]?["field"] == "text")
        try host.send(#"{"jsonrpc":"2.0","id":2,"method":"chat.history","params":{"roomId":"grp-team","limit":50}}"#)
        let history = try host.nextMessage()
        let items = try #require(history["result"]?["items"]?.arrayValue, "\(history)")
        #expect(!items.contains { $0["clientMessageId"] == "c1" }, "stored: \(history)")
    }

    @Test("in a batch, only the element holding one fails, with its id")
    func batch() throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"])
        try host.send(#"[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","id":2,"method":"chat.rooms\ud83d"}]"#)
        let replies = try #require(try host.nextMessage().arrayValue)
        try #require(replies.count == 2)
        #expect(replies[0]["id"] == 1 && replies[0]["result"] != nil)
        #expect(replies[1]["id"] == 2 && BinaryHarness.errorCode(replies[1]) == -32600)
    }
}
