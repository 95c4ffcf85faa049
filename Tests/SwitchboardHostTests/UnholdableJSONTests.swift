import Jansson
import JSONRPC
import Testing

/// Valid JSON that jansson cannot hold (integers beyond 64 bits, reals beyond a double, `\u0000` in a
/// member name) is not a parse error: it is answered `-32602` when it sits inside `params`, else
/// `-32600`, with the request's id whenever that can be read exactly.
@Suite("Valid JSON that jansson cannot hold", .offCooperativePool)
struct UnholdableJSONTests {
    @Test("an integer beyond 64 bits inside params: -32602 naming the field, with the request's id")
    func integerInParams() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":7,"method":"host.echo","params":{"limit":9223372036854775808}}"#)
        let error = expectError(try await host.reply(to: 7), id: 7, code: -32602)
        #expect(error["data"]?["field"] == "limit")
        #expect(error["data"]?["got"] == "9223372036854775808")
    }

    @Test("inside params, at any depth and in arrays: -32602 with the path", arguments: [
        (#"{"a":[1,{"b":1e999}]}"#, "a[1].b"),
        (#"[18446744073709551616]"#, "[0]"),
        (#"{"a\u0000b":1}"#, "a\u{0}b"),
    ])
    func deepInParams(params: String, field: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":"q","method":"host.echo","params":\#(params)}"#)
        let error = expectError(try await host.reply(to: "q"), id: "q", code: -32602)
        #expect(error["data"]?["field"] == .string(field))
    }

    @Test("outside params: -32600 with the id")
    func outsideParams() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":10,"method":"host.echo","extra":99999999999999999999}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":11,"method":"host.echo","x":{"\u0000":1}}"#)
        let first = expectError(try await host.reply(to: 10), id: 10, code: -32600)
        #expect(first["message"]?.stringValue?.contains("extra") == true)
        expectError(try await host.reply(to: 11), id: 11, code: -32600)
    }

    @Test("outside params, a long member name on the path is quoted only in part")
    func longNameOutsideParams() async throws {
        let host = try Harness()
        let name = String(repeating: "n", count: 100_000)
        try await host.send(#"{"jsonrpc":"2.0","id":12,"method":"host.echo","\#(name)":99999999999999999999}"#)
        let error = expectError(try await host.reply(to: 12), id: 12, code: -32600)
        let message = try #require(error["message"]?.stringValue)
        #expect(message.utf8.count < 1_000)
        #expect(message.contains("100000 bytes"))
    }

    @Test("a notification holding an unholdable value outside params is never answered", arguments: [
        #"{"jsonrpc":"2.0","method":"host.ping","extra":1e400}"#,
        #"{"jsonrpc":"2.0","method":"host.ping","x\u0000":1}"#,
    ])
    func notificationOutsideParams(text: String) async throws {
        let host = try Harness()
        try await host.send(text)
        try await host.send(#"{"jsonrpc":"2.0","id":13,"method":"host.ping"}"#)
        let frame = try await host.frame(0)
        #expect(frame.id == 13, "the notification was answered: \(host.outputText)")
    }

    @Test("a response holding an unholdable value is never answered; the request it answers fails")
    func responseOutsideParams() async throws {
        let host = try Harness()
        let call = Task { try await host.connection.sendRequest(method: "client/hello", params: nil) }
        try await host.send(#"{"jsonrpc":"2.0","id":14,"method":"host.ping"}"#)
        let request = try await host.frame(where: "the request to the client") { $0.method == "client/hello" }
        let id = try #require(request.id)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id.jsonText()),"result":{"big":99999999999999999999}}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":15,"method":"host.ping"}"#)
        _ = try await host.reply(to: 15)
        let answered = host.writtenFrames.filter { $0.method == nil }.compactMap(\.id)
        try #require(answered == [14, 15], "the response was answered: \(host.outputText)")
        let error = await #expect(throws: ResponseError.self) { _ = try await call.value }
        #expect(error?.message.contains("99999999999999999999") == true)
    }

    @Test("an id that cannot be read exactly is answered with id null", arguments: [
        "99999999999999999999", "-99999999999999999999", "1e999",
    ])
    func unreadableID(id: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.echo","params":{"n":99999999999999999999}}"#)
        let frame = try await host.frame(0)
        expectError(frame, id: nil, code: -32600)
        #expect(frame.rawID == "null")
    }

    @Test("a real id with more digits than a double holds is never echoed rounded: -32600 with id null", arguments: [
        "0.1000000000000000000001", "9007199254740993.0", "2.50000000000000000001",
    ])
    func roundedID(id: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.ping"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"test.fast"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.echo","params":{"n":99999999999999999999}}"#)
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        #expect(frames.count == 3)
        for frame in frames {
            expectError(frame, id: nil, code: -32600)
        }
    }

    @Test("an unknown method is still -32601, and a notification with unholdable params is not answered")
    func methodAndNotification() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","method":"host.echo","params":{"n":9223372036854775808}}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":12,"method":"no.such","params":{"n":9223372036854775808}}"#)
        expectError(try await host.frame(0), id: 12, code: -32601)
        #expect(host.writtenFrames.count == 1)
    }

    @Test("the rest of the envelope is still checked: no jsonrpc member is -32600 with the id")
    func envelopeChecked() async throws {
        let host = try Harness()
        try await host.send(#"{"id":13,"method":"host.echo","params":{"n":9223372036854775808}}"#)
        expectError(try await host.frame(0), id: 13, code: -32600)
    }

    @Test("in a batch, each member is answered on its own: the holdable ones normally")
    func batch() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","id":2,"method":"host.echo","params":[18446744073709551616]},{"jsonrpc":"2.0","id":3,"method":"host.echo","x":1e999}]"#)
        let frame = try await host.frame(0)
        let replies = try #require(frame.value?.arrayValue)
        try #require(replies.count == 3)
        #expect(replies[0]["result"] == "pong")
        expectErrorValue(replies[1], id: 2, code: -32602)
        expectErrorValue(replies[2], id: 3, code: -32600)
    }

    @Test("text that is not valid JSON after all is still -32700", arguments: [
        #"{"jsonrpc":"2.0","id":14,"method":"host.echo","params":{"n":9223372036854775808}} x"#,
        #"{"jsonrpc":"2.0","id":15,"params":{"n":9223372036854775808},"#,
    ])
    func stillParseErrors(text: String) async throws {
        let host = try Harness()
        try await host.send(text)
        expectError(try await host.frame(0), id: nil, code: -32700)
    }
}

@Suite("Valid JSON that jansson cannot hold, against the binary", .offCooperativePool)
struct BinaryUnholdableJSONTests {
    @Test("inbox.list with a limit beyond 64 bits is answered -32602 with its id, in both framings",
          arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func inboxList(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"], wire: wire)
        try host.send(#"{"jsonrpc":"2.0","id":7,"method":"inbox.list","params":{"limit":9223372036854775808}}"#)
        let reply = try host.nextMessage()
        #expect(reply["id"] == 7)
        #expect(BinaryHarness.errorCode(reply) == -32602)
        #expect(reply["error"]?["data"]?["field"] == "limit")
    }
}

/// Real ids come back with the text they were sent with, from the input thread and from tasks alike.
@Suite("Real ids are echoed as sent", .offCooperativePool)
struct ExactRealIDTests {
    static let ids = ["1e2", "1E2", "1.50", "1e-7", "-0.0", "2.5E+3", "100.0", "0.1"]

    @Test("from an immediate method, a task, an error, and inside a batch", arguments: ids)
    func echoed(id: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.ping"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"test.fast"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"no.such"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"test.boom"}"#)
        try await host.send(#"{"jsonrpc":"1.0","id":\#(id),"method":"host.ping"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"host.echo","params":{"n":99999999999999999999}}"#)
        try await host.send(#"[{"jsonrpc":"2.0","id":\#(id),"method":"host.ping"},{"jsonrpc":"2.0","id":\#(id),"method":"test.fast"}]"#)
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        try #require(frames.count == 7, "\(frames)")
        for frame in frames where !frame.isBatch {
            #expect(frame.rawID == id, "\(frame.text)")
        }
        let batch = try #require(frames.first { $0.isBatch })
        #expect(batch.text.ranges(of: #""id":\#(id),"#).count == 2, "\(batch.text)")
        #expect(frames.allSatisfy { $0.value != nil })
    }
}
