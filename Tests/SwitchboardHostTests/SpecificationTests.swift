import Jansson
import JSONRPC
import Testing

// JSON-RPC 2.0 (https://www.jsonrpc.org/specification), rule by rule, in process (issue point 4).
// Batches have their own file (BatchTests).

@Suite("JSON-RPC 2.0: the specification's examples")
struct SpecificationExampleTests {
    @Test("rpc call with positional parameters: host.echo answers the array unchanged")
    func positionalParams() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.echo", "params": [42, 23], "id": 1}"#)
        let reply = try await host.reply(to: 1)
        expectResult(reply, id: 1, [42, 23])
        #expect(reply.text == #"{"jsonrpc":"2.0","id":1,"result":[42,23]}"#)
    }

    @Test("rpc call with named parameters: host.echo answers the object with its member order")
    func namedParams() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.echo", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#)
        let reply = try await host.reply(to: 3)
        expectResult(reply, id: 3, ["subtrahend": 23, "minuend": 42])
        #expect(RawJSON.memberText(named: "result", inObject: reply.text) == #"{"subtrahend":23,"minuend":42}"#)
    }

    @Test("a notification is never answered, known method or not")
    func notifications() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "foobar"}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.ping"}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.echo", "params": {"a": 1}}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "test.note", "params": {"text": "seen"}}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "test.fast"}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.sleep", "params": {"ms": 0, "steps": 1}}"#)
        try await host.waitUntilIdle()
        let pong = try await host.call("host.ping", id: "after")
        expectResult(pong, id: "after", "pong")
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.map(\.text) == [pong.text], "only the request after the notifications is answered")
        #expect(host.probe.count(of: "note:seen") == 1, "the notification was handled")
    }

    @Test("a notification whose handler fails is still not answered")
    func failingNotifications() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.sleep", "params": {"ms": "ten"}}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "host.sleep", "params": {"ms": -1}}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "test.boom"}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "test.boomNow"}"#)
        try await host.send(#"{"jsonrpc": "2.0", "method": "test.note", "params": {"text": 5}}"#)
        try await host.waitUntilIdle()
        let pong = try await host.call("host.ping", id: 1)
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.map(\.text) == [pong.text])
    }

    @Test("rpc call of a non-existent method: -32601 with the id")
    func nonExistentMethod() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#)
        let reply = try await host.reply(to: "1")
        let error = expectError(reply, id: "1", code: -32601)
        #expect(error["data"] == ["method": "foobar"])
        #expect(error["message"]?.stringValue?.contains("foobar") == true)
    }

    @Test("rpc call with invalid JSON: -32700 with id null")
    func invalidJSON() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)
        let reply = try await host.frame(0)
        let error = expectError(reply, id: nil, code: -32700)
        #expect(error["data"]?["reason"]?.stringValue != nil)
        #expect(error["data"]?["line"] == 1)
        #expect(error["data"]?["column"]?.int64Value != nil)
        #expect(error["data"]?["offset"]?.int64Value != nil)
        #expect(reply.rawID == "null")
    }

    @Test("rpc call with an invalid Request object: -32600 with id null")
    func invalidRequestObject() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#)
        expectError(try await host.frame(0), id: nil, code: -32600)
    }
}

@Suite("JSON-RPC 2.0: ids are echoed exactly")
struct IDEchoTests {
    static let ids: [(text: String, value: JSONValue)] = [
        (#""a""#, "a"),
        (#""""#, ""),
        (#""a \"quoted\" \\ \u00e9 😀 id""#, "a \"quoted\" \\ é 😀 id"),
        ("0", 0),
        ("-7", -7),
        ("9007199254740993", .integer(9_007_199_254_740_993)),
        ("9223372036854775807", .integer(Int64.max)),
        ("-9223372036854775808", .integer(Int64.min)),
        ("null", .null),
        ("1.5", 1.5),
        ("0.1", 0.1),
        ("-2.25", -2.25),
    ]

    @Test("ids of every kind come back with the same value and the same text, on the input thread",
          arguments: ids.map(\.text))
    func immediateMethod(idText: String) async throws {
        let value = try JSONValue(parsing: idText)
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":\#(idText),"method":"host.ping"}"#)
        let reply = try await host.reply(to: value)
        expectResult(reply, id: value, "pong")
        #expect(reply.rawID == RawJSON.memberText(named: "id", inObject: #"{"id":\#(idText)}"#).map(compact))
    }

    @Test("ids of every kind come back with the same value and the same text from a task",
          arguments: ids.map(\.text))
    func taskMethod(idText: String) async throws {
        let value = try JSONValue(parsing: idText)
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":\#(idText),"method":"test.fast"}"#)
        let reply = try await host.reply(to: value)
        expectResult(reply, id: value, "fast")
        #expect(reply.rawID == RawJSON.memberText(named: "id", inObject: #"{"id":\#(idText)}"#).map(compact))
    }

    @Test("ids are echoed in error responses too", arguments: ids.map(\.text))
    func errorResponses(idText: String) async throws {
        let value = try JSONValue(parsing: idText)
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":\#(idText),"method":"no.such"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":\#(idText),"method":"host.sleep","params":{"ms":-1}}"#)
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        try #require(frames.count == 2)
        expectError(frames[0], id: value, code: -32601)
        expectError(frames[1], id: value, code: -32602)
        #expect(frames.map(\.rawID) == Array(repeating: compact(idText), count: 2))
    }

    @Test("a fractional id keeps its shortest text even when the result holds a real that needs 17 digits")
    func fractionalIDBesideLongReal() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":0.1,"method":"host.echo","params":[0.30000000000000004]}"#)
        let reply = try await host.reply(to: 0.1)
        expectResult(reply, id: 0.1, [0.30000000000000004])
        #expect(reply.rawID == "0.1")
    }
}

/// A scalar's text as the host writes it: strings re-encoded by jansson, numbers and null as they are.
private func compact(_ text: String) -> String {
    guard text.hasPrefix("\"") else { return text }
    return (try? JSONValue(parsing: text))?.jsonText() ?? text
}

@Suite("JSON-RPC 2.0: invalid Request objects")
struct InvalidRequestTests {
    @Test("a missing \"jsonrpc\" member is -32600 with the request's id")
    func missingVersion() async throws {
        let host = try Harness()
        try await host.send(#"{"method":"host.ping","id":1}"#)
        expectError(try await host.reply(to: 1), id: 1, code: -32600)
    }

    @Test("a \"jsonrpc\" other than the string \"2.0\" is -32600 with the request's id",
          arguments: [#""1.0""#, "2.0", "2", #""2.00""#, "null", #"["2.0"]"#])
    func wrongVersion(version: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":\#(version),"method":"host.ping","id":"v"}"#)
        expectError(try await host.reply(to: "v"), id: "v", code: -32600)
    }

    @Test("a message without \"jsonrpc\" and without id is -32600 with id null")
    func missingVersionNoID() async throws {
        let host = try Harness()
        try await host.send(#"{"method":"host.ping"}"#)
        expectError(try await host.frame(0), id: nil, code: -32600)
    }

    @Test("an id that is an object, an array or a boolean is -32600 with id null",
          arguments: ["{}", #"{"a":1}"#, "[]", "[1]", "true", "false"])
    func idOfWrongType(id: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","method":"host.ping","id":\#(id)}"#)
        let reply = try await host.frame(0)
        expectError(reply, id: nil, code: -32600)
        #expect(reply.rawID == "null")
    }

    @Test("params that are neither an object nor an array are -32600 with the request's id",
          arguments: [#""bar""#, "42", "4.5", "true", "null"])
    func paramsOfWrongType(params: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","method":"host.echo","params":\#(params),"id":7}"#)
        expectError(try await host.reply(to: 7), id: 7, code: -32600)
    }

    @Test("a method that is not a string is -32600 with the request's id", arguments: ["1", "null", "[]", "{}", "true"])
    func methodOfWrongType(method: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","method":\#(method),"id":"m"}"#)
        expectError(try await host.reply(to: "m"), id: "m", code: -32600)
    }

    @Test("a request without a method is -32600 with the request's id")
    func missingMethod() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":8}"#)
        expectError(try await host.reply(to: 8), id: 8, code: -32600)
    }

    @Test("a request that also carries a result or an error member is -32600 with the request's id",
          arguments: [#""result":1"#, #""error":{"code":1,"message":"x"}"#, #""result":null"#])
    func requestWithResultMember(extra: String) async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","method":"host.ping",\#(extra),"id":9}"#)
        expectError(try await host.reply(to: 9), id: 9, code: -32600)
    }

    @Test("a message with both result and error is -32600")
    func resultAndError() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":10}"#)
        expectError(try await host.reply(to: 10), id: 10, code: -32600)
    }

    @Test("a top-level value that is not an object or array is -32600 with id null",
          arguments: ["42", #""hello""#, "null", "true", "1.5"])
    func scalarMessage(text: String) async throws {
        let host = try Harness()
        try await host.send(text)
        expectError(try await host.frame(0), id: nil, code: -32600)
    }

    @Test("a response from the client to no request of ours is not answered")
    func strayResponse() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":99,"result":"x"}"#)
        try await host.send(#"{"jsonrpc":"2.0","id":98,"error":{"code":-1,"message":"no"}}"#)
        let pong = try await host.call("host.ping", id: 1)
        #expect(host.writtenFrames.map(\.text) == [pong.text])
    }

    @Test("a result without an id is -32600 with id null")
    func resultWithoutID() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","result":"x"}"#)
        expectError(try await host.frame(0), id: nil, code: -32600)
    }

    @Test("invalid UTF-8 is a parse error with id null")
    func invalidUTF8() async throws {
        let host = try Harness()
        var line = Array(#"{"jsonrpc":"2.0","method":"host.echo","params":[""#.utf8)
        line += [0xFF, 0xFE]
        line += Array(#""],"id":1}"#.utf8) + [0x0A]
        try await host.send(bytes: line)
        expectError(try await host.frame(0), id: nil, code: -32700)
    }
}

@Suite("JSON-RPC 2.0: the stream stays in sync")
struct StreamSyncTests {
    static let badMessages: [String] = [
        #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
        #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
        #"{"jsonrpc":"2.0","method":"host.ping","id":{}}"#,
        #"{"jsonrpc":"2.0","method":"host.echo","params":"bar","id":"p"}"#,
        #"{"method":"host.ping","id":1}"#,
        #"{"jsonrpc":"2.0","method":"nope","id":2}"#,
        #"{"jsonrpc":"2.0","method":"host.sleep","params":{"ms":"ten"},"id":3}"#,
        #"{"jsonrpc":"2.0","method":"test.boomNow","id":4}"#,
        "[]",
        "[1,2,3]",
        "}{",
        "{",
        #"["#,
        #"{"jsonrpc":"2.0","method":"host.ping","id":1}{"jsonrpc":"2.0","method":"host.ping","id":2}"#,
        "nul",
        #""unterminated"#,
    ]

    @Test("after each bad message the next request is answered normally", arguments: [nil, 1, 5])
    func inSync(chunkSize: Int?) async throws {
        let host = try Harness()
        var input = ""
        for (index, bad) in Self.badMessages.enumerated() {
            input += bad + "\n"
            input += #"{"jsonrpc":"2.0","method":"host.ping","id":"sync-\#(index)"}"# + "\n"
        }
        try await host.send(raw: input, chunkSize: chunkSize)
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        #expect(frames.count == Self.badMessages.count * 2, "one answer per bad message and one per ping")
        var pings = 0
        for (index, frame) in frames.enumerated() {
            if index % 2 == 1 {
                expectResult(frame, id: .string("sync-\(pings)"), "pong")
                pings += 1
            } else {
                #expect(frame.result == nil, "bad message \(index / 2) answered with an error: \(frame.text)")
            }
        }
        #expect(pings == Self.badMessages.count)
    }
}

@Suite("JSON-RPC 2.0 in LSP framing, in process")
struct InProcessLSPTests {
    static func lsp(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    @Test("an LSP-framed request is detected and answered with a Content-Length frame")
    func lspReply() async throws {
        let host = try Harness(framing: nil)
        try await host.send(raw: Self.lsp(#"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"#))
        let reply = try await host.reply(to: 1)
        expectResult(reply, id: 1, "pong")
        #expect(host.outputText == Self.lsp(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#))
        #expect(host.connection.framing == .lsp)
    }

    @Test("task-run replies, errors and notifications are LSP-framed too")
    func lspEverything() async throws {
        let host = try Harness(framing: nil)
        let input = Self.lsp(#"{"jsonrpc":"2.0","id":1,"method":"host.sleep","params":{"ms":0,"steps":1,"_meta":{"progressToken":"t"}}}"#)
            + Self.lsp("{oops") + Self.lsp(#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#)
        try await host.send(raw: input, chunkSize: 3)
        try await host.waitUntilIdle()
        host.connection.notify(method: "test/event", params: ["n": 1])
        let frames = host.writtenFrames
        #expect(frames.count == 5)
        var expected = ""
        for frame in frames { expected += Self.lsp(frame.text) }
        #expect(host.outputText == expected, "every frame has a Content-Length header and nothing else lies between")
        #expect(frames.contains { $0.id == 1 && $0.result == ["slept": 0, "steps": 1] })
        #expect(frames.contains { $0.id == 2 && $0.errorCode == -32601 })
        #expect(frames.contains { $0.id == .null && $0.errorCode == -32700 })
        #expect(frames.contains { $0.method == "$/progress" })
        #expect(frames.last?.method == "test/event")
    }

    @Test("the spec's examples work with a multi-line body in LSP framing")
    func multiLineBody() async throws {
        let host = try Harness(framing: .lsp)
        try await host.send(raw: Self.lsp("{\"jsonrpc\": \"2.0\",\n \"method\": \"host.echo\",\n \"params\": [42, 23],\n \"id\": 1}"))
        expectResult(try await host.reply(to: 1), id: 1, [42, 23])
    }

    @Test("an NDJSON stream is detected and answered with NDJSON lines")
    func ndjsonDetected() async throws {
        let host = try Harness(framing: nil)
        try await host.send(#"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"#)
        _ = try await host.reply(to: 1)
        #expect(host.outputText == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"# + "\n")
        #expect(host.connection.framing == .ndjson)
    }
}
