import Jansson
import JSONRPC
import Testing

// Limits (issue point 9): message size, batch length and nesting depth, each answered with an error
// while the stream stays in sync. (The framer's own handling of oversized input is tested in
// JSONRPCTests; here the connection's answers are.)

@Suite("Limits: message size")
struct MessageSizeLimitTests {
    /// A host.echo request line of exactly `size` bytes (without its newline).
    static func echoLine(id: Int, size: Int) -> String {
        let head = #"{"jsonrpc":"2.0","id":\#(id),"method":"host.echo","params":[""#
        let tail = #""]}"#
        return head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail
    }

    @Test("an NDJSON line over maxMessageBytes is -32600 with the request's id naming size and limit; the next line is answered",
          arguments: [nil, 1, 7])
    func oversizedLine(chunkSize: Int?) async throws {
        let host = try Harness(limits: ConnectionLimits(maxMessageBytes: 64))
        let big = Self.echoLine(id: 1, size: 200)
        try await host.send(raw: big + "\n" + #"{"jsonrpc":"2.0","id":2,"method":"host.ping"}"# + "\n", chunkSize: chunkSize)
        let error = expectError(try await host.frame(0), id: 1, code: -32600)
        #expect(error["message"] == "Invalid Request: message of 200 bytes exceeds the limit of 64 bytes")
        #expect(error["data"] == ["size": 200, "limit": 64])
        expectResult(try await host.frame(1), id: 2, "pong")
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 2, "the oversized request itself is never answered")
    }

    @Test("a message of more than 2^20 values is -32600 with its id naming the limit, unparsed (jansson took 1.5 GB for 16 MiB of {}); a larger one of few values is read; the next line is answered")
    func tooManyValues() async throws {
        let host = try Harness()
        let many = #"{"jsonrpc":"2.0","id":1,"method":"host.echo","params":["# + String(repeating: "0,", count: 1 << 20) + "0]}"
        let long = #"{"jsonrpc":"2.0","id":2,"method":"host.echo","params":[""# + String(repeating: "x,[{", count: 1 << 20) + #""]}"#
        for line in [many, long, #"{"jsonrpc":"2.0","id":3,"method":"host.ping"}"#] { try await host.send(line) }
        let error = expectError(try await host.frame(0), id: 1, code: -32600)
        #expect(error["message"] == "Invalid Request: message holds more than 1048576 values, the limit")
        #expect(error["data"] == ["limit": 1_048_576])
        let echoed = try await host.reply(to: 2)
        #expect(echoed.errorCode == nil)
        expectResult(try await host.frame(2), id: 3, "pong")
    }

    @Test("a message refused for its value count is answered with its id, first or last, exactly as sent; a batch, an answer, a notification, an id in params get null")
    func tooManyValuesKeepsTheID() async throws {
        let host = try Harness(limits: ConnectionLimits(maxValues: 1000))
        let zeros = String(repeating: "0,", count: 6_000) + "0"
        let lines = [
            #"{"jsonrpc":"2.0","id":"first","method":"host.echo","params":[\#(zeros)]}"#,
            #"{"jsonrpc":"2.0","method":"host.echo","params":[\#(zeros)],"id":1e2}"#,
            #"[{"jsonrpc":"2.0","id":3,"method":"host.echo","params":[\#(zeros)]}]"#,
            #"{"jsonrpc":"2.0","id":4,"result":[\#(zeros)]}"#,
            #"{"jsonrpc":"2.0","method":"host.echo","params":[\#(zeros)]}"#,
            #"{"jsonrpc":"2.0","method":"host.echo","params":{"z":[\#(zeros)],"id":6}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"host.ping"}"#,
        ]
        for line in lines { try await host.send(line) }
        let limitError = "Invalid Request: message holds more than 1000 values, the limit"
        #expect(expectError(try await host.frame(0), id: "first", code: -32600)["message"] == .string(limitError))
        let last = try await host.frame(1)
        #expect(last.text.contains(#""id":1e2"#), "the real id echoed as sent: \(last.text)")
        for index in 2...5 {
            #expect(expectError(try await host.frame(index), id: nil, code: -32600)["message"] == .string(limitError))
        }
        expectResult(try await host.frame(6), id: 7, "pong")
        host.expectValidAnswers()
    }

    @Test("a line of exactly maxMessageBytes is accepted")
    func atLimit() async throws {
        let host = try Harness(limits: ConnectionLimits(maxMessageBytes: 64))
        let line = Self.echoLine(id: 1, size: 64)
        #expect(line.utf8.count == 64)
        try await host.send(line + "\r")
        let reply = try await host.reply(to: 1)
        #expect(reply.errorCode == nil, "\(reply.text)")
        try await host.send(Self.echoLine(id: 2, size: 65))
        expectError(try await host.frame(1), id: 2, code: -32600)
    }

    @Test("an oversized LSP body is skipped and answered -32600 with the request's id; the next message is answered in LSP framing")
    func oversizedLSPBody() async throws {
        let host = try Harness(limits: ConnectionLimits(maxMessageBytes: 64), framing: nil)
        let big = Self.echoLine(id: 1, size: 200)
        let small = #"{"jsonrpc":"2.0","id":2,"method":"host.ping"}"#
        try await host.send(raw: "Content-Length: 200\r\n\r\n\(big)Content-Length: \(small.utf8.count)\r\n\r\n\(small)", chunkSize: 13)
        let error = expectError(try await host.frame(0), id: 1, code: -32600)
        #expect(error["data"] == ["size": 200, "limit": 64])
        expectResult(try await host.frame(1), id: 2, "pong")
        #expect(host.outputText.hasPrefix("Content-Length: "))
    }

    @Test("a non-numeric Content-Length is an error, not a hang; the next message is answered")
    func nonNumericHeader() async throws {
        let host = try Harness(framing: .lsp)
        let small = #"{"jsonrpc":"2.0","id":2,"method":"host.ping"}"#
        try await host.send(raw: "Content-Length: ten\r\n\r\n{}Content-Length: \(small.utf8.count)\r\n\r\n\(small)")
        let error = expectError(try await host.frame(0), id: nil, code: -32700)
        #expect(error["message"]?.stringValue?.contains("header") == true)
        expectResult(try await host.reply(to: 2), id: 2, "pong")
    }

    @Test("a Content-Length shorter than the body is an error, and the next message, right after the body, is answered")
    func shortLyingHeader() async throws {
        let host = try Harness(framing: .lsp)
        let first = #"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"#
        let second = #"{"jsonrpc":"2.0","id":2,"method":"host.ping"}"#
        let third = #"{"jsonrpc":"2.0","id":3,"method":"host.ping"}"#
        try await host.send(raw: "Content-Length: 10\r\n\r\n\(first)Content-Length: \(second.utf8.count)\r\n\r\n\(second)")
        try await host.send(raw: "Content-Length: \(third.utf8.count)\r\n\r\n\(third)")
        expectResult(try await host.reply(to: 3), id: 3, "pong")
        let before = host.frames.elements.prefix { $0.id != 3 }
        #expect(before.contains { $0.errorCode == -32700 && $0.id == .null }, "the lying header was answered with an error")
        #expect(before.contains { $0.id == 2 && $0.result == "pong" }, "the message after the lying one was lost: \(before)")
    }

    @Test("a Content-Length longer than what arrives before EOF is -32700 'truncated' under the id that came, not a hang; null when none did")
    func longLyingHeader() async throws {
        let host = try Harness(framing: .lsp)
        try await host.send(raw: "Content-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"host.ping\"}")
        try await host.finishInput()
        let error = expectError(try await host.frame(0), id: 1, code: -32700)
        #expect(error["message"]?.stringValue?.contains("truncated") == true)

        let cut = try Harness(framing: .lsp)
        try await cut.send(raw: "Content-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"host.ping\",\"i")
        try await cut.finishInput()
        _ = expectError(try await cut.frame(0), id: nil, code: -32700)
    }
}

@Suite("Limits: batch length")
struct BatchLengthLimitTests {
    static func batch(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"jsonrpc":"2.0","method":"host.ping","id":\#($0)}"# }.joined(separator: ",") + "]"
    }

    @Test("a batch over maxBatchLength is one -32600 with id null naming size and limit; the next message is answered")
    func overLimit() async throws {
        let host = try Harness(limits: ConnectionLimits(maxBatchLength: 3))
        try await host.send(Self.batch(4))
        let reply = try await host.frame(0)
        #expect(!reply.isBatch)
        let error = expectError(reply, id: nil, code: -32600)
        #expect(error["data"] == ["size": 4, "limit": 3])
        expectResult(try await host.call("host.ping", id: "next"), id: "next", "pong")
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 2, "none of the batch's requests ran")
    }

    @Test("a batch of exactly maxBatchLength is answered in full")
    func atLimit() async throws {
        let host = try Harness(limits: ConnectionLimits(maxBatchLength: 3))
        try await host.send(Self.batch(3))
        let answers = try #require(try await host.frame(0).json.arrayValue)
        #expect(answers.map { $0["result"] } == ["pong", "pong", "pong"])
    }

    @Test("the default batch limit is 1000")
    func defaultLimit() async throws {
        let host = try Harness()
        try await host.send(Self.batch(1000) + "\n" + Self.batch(1001))
        let answers = try #require(try await host.frame(0).json.arrayValue)
        #expect(answers.count == 1000)
        expectError(try await host.frame(1), id: nil, code: -32600)
    }
}

@Suite("Limits: nesting depth")
struct NestingLimitTests {
    /// `levels` nested arrays around 1.
    static func nested(_ levels: Int) -> String {
        String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels)
    }

    @Test("a message nesting deeper than maxNestingDepth is -32600 with its id; one at the limit is answered")
    func customLimit() async throws {
        let host = try Harness(limits: ConnectionLimits(maxNestingDepth: 8))
        // The request object is level 1, so params with 7 arrays make depth 8.
        try await host.send(#"{"jsonrpc":"2.0","id":1,"method":"host.echo","params":\#(Self.nested(7))}"#)
        let ok = try await host.reply(to: 1)
        #expect(ok.errorCode == nil, "\(ok.text)")
        try await host.send(#"{"jsonrpc":"2.0","id":2,"method":"host.echo","params":\#(Self.nested(8))}"#)
        let error = expectError(try await host.reply(to: 2), id: 2, code: -32600)
        #expect(error["data"] == ["limit": 8])
        expectResult(try await host.call("host.ping", id: 3), id: 3, "pong")
    }

    @Test("a batch nesting too deep is -32600 with id null")
    func deepBatch() async throws {
        let host = try Harness(limits: ConnectionLimits(maxNestingDepth: 8))
        try await host.send(#"[{"jsonrpc":"2.0","id":1,"method":"host.echo","params":\#(Self.nested(10))}]"#)
        let reply = try await host.frame(0)
        #expect(!reply.isBatch)
        expectError(reply, id: nil, code: -32600)
    }

    @Test("the default depth limit is 128")
    func defaultLimit() async throws {
        let host = try Harness()
        try await host.send(#"{"jsonrpc":"2.0","id":1,"method":"host.echo","params":\#(Self.nested(127))}"#)
        #expect(try await host.reply(to: 1).errorCode == nil)
        try await host.send(#"{"jsonrpc":"2.0","id":2,"method":"host.echo","params":\#(Self.nested(128))}"#)
        expectError(try await host.reply(to: 2), id: 2, code: -32600)
    }

    @Test("nesting 100,000 levels deep does not crash: -32600 as for any message over the depth limit, then the next message is answered",
          arguments: [false, true])
    func veryDeep(insideRequest: Bool) async throws {
        let host = try Harness()
        let deep = Self.nested(100_000)
        let line = insideRequest ? #"{"jsonrpc":"2.0","id":1,"method":"host.echo","params":\#(deep)}"# : deep
        try await host.send(line)
        let reply = try await host.frame(0)
        // Valid JSON deeper than maxNestingDepth (128): the advertised limit's error, as at 129 levels,
        // not a parse error claiming the JSON is invalid.
        // The id may be read (1) or not (null); outside a request there is none.
        let id: JSONValue = insideRequest && reply.id == 1 ? 1 : nil
        let error = expectError(reply, id: id, code: -32600)
        #expect(error["data"] == ["limit": 128], "\(reply.text)")
        expectResult(try await host.call("host.ping", id: "after"), id: "after", "pong")
        let objects = host.frames.elements.count
        #expect(objects == 2)
    }

    @Test("a nesting limit above 2048, jansson's compiled-in parser limit, is lowered to 2048 and advertised as such")
    func limitAboveParserDefault() async throws {
        #expect(ConnectionLimits(maxNestingDepth: 5000).maxNestingDepth == 2048)
        let host = try Harness(limits: ConnectionLimits(maxNestingDepth: 5000))
        try await host.send(#"{"jsonrpc":"2.0","id":1,"method":"host.echo","params":\#(Self.nested(2000))}"#)
        #expect(try await host.frame(0).errorCode == nil)
        try await host.send(#"{"jsonrpc":"2.0","id":2,"method":"host.echo","params":\#(Self.nested(3000))}"#)
        let error = expectError(try await host.frame(1), id: nil, code: -32600)
        #expect(error["data"] == ["limit": 2048])
    }
}
