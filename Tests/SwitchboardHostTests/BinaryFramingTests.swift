#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

// The built binary over real pipes: NDJSON and LSP framing, detection, limits, stdout hygiene (issue points 3, 8, 9).

@Suite("The binary's framing over real pipes", .offCooperativePool)
struct BinaryNDJSONTests {
    typealias H = BinaryHarness

    @Test("a piped request followed by EOF is answered and the host exits 0")
    func pipedRequestThenEOF() throws {
        let host = try SpawnedHost()
        try host.write(#"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"# + "\n")
        host.closeInput()
        let messages = try host.readToEndOfOutput()
        #expect(messages == [["jsonrpc": "2.0", "id": 1, "result": "pong"]])
        #expect(host.stdoutText == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"# + "\n")
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("`switchboard serve` behaves like plain `switchboard`")
    func explicitServe() throws {
        let run = try H.run(["serve"], input: H.frame(H.request(7, "host.ping"), .ndjson))
        #expect(run.stdout == #"{"jsonrpc":"2.0","id":7,"result":"pong"}"# + "\n")
        #expect(run.termination == .exited(0))
    }

    @Test("several requests in one write are each answered once")
    func severalRequests() throws {
        let host = try SpawnedHost()
        try host.send([
            H.request(1, "host.ping"),
            H.request(2, "host.echo", #"{"x":[1,2,3]}"#),
            H.notification("host.ping"),
            H.request(3, "no.such"),
        ])
        host.closeInput()
        let messages = try host.readToEndOfOutput()
        #expect(messages.count == 3)
        messages.forEach { H.expectWellFormedResponse($0) }
        let byID = Dictionary(messages.compactMap { message in message["id"]?.int64Value.map { ($0, message) } },
                              uniquingKeysWith: { first, _ in first })
        #expect(byID[1]?["result"] == "pong")
        #expect(byID[2]?["result"] == ["x": [1, 2, 3]])
        #expect(byID[3].flatMap(H.errorCode) == -32601)
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("blank lines between messages are ignored, not answered")
    func blankLines() throws {
        let input = "\n\n" + H.request(1, "host.ping") + "\n\n   \n\t\n\r\n" + H.request(2, "host.ping") + "\n\n\n"
        let run = try H.run([], input: Array(input.utf8))
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines == [#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#, #"{"jsonrpc":"2.0","id":2,"result":"pong"}"#, ""])
        #expect(run.termination == .exited(0))
    }

    @Test("CRLF-terminated lines are answered")
    func crlfLines() throws {
        let input = H.request(1, "host.echo", #"{"s":"a"}"#) + "\r\n" + H.request(2, "host.ping") + "\r\n"
        let host = try SpawnedHost()
        try host.write(input)
        // The client keeps stdin open: each line is answered as soon as its end arrives.
        let first = try host.nextMessage()
        let second = try host.nextMessage()
        #expect(first == ["jsonrpc": "2.0", "id": 1, "result": ["s": "a"]])
        #expect(second == ["jsonrpc": "2.0", "id": 2, "result": "pong"])
        host.closeInput()
        #expect(try host.readToEndOfOutput().isEmpty)
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("a last request without a final newline is answered at EOF")
    func lastLineWithoutNewline() throws {
        let input = H.request(1, "host.ping") + "\n" + H.request(2, "host.echo", "[42]")
        let run = try H.run([], input: Array(input.utf8))
        #expect(run.stdout == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"# + "\n" + #"{"jsonrpc":"2.0","id":2,"result":[42]}"# + "\n")
        #expect(run.termination == .exited(0))
    }

    @Test("a big request written in many small pieces is answered whole", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func bigRequestInSmallWrites(wire: BinaryHarness.Wire) throws {
        let payload = String((0..<200_000).map { i in Character(UnicodeScalar(UInt8(97 + i % 26))) })
        let bytes = H.frame(H.request(9, "host.echo", #"{"payload":"\#(payload)"}"#), wire)
        let host = try SpawnedHost(wire: wire)
        var offset = 0
        var size = 1
        while offset < bytes.count {
            // 1, 2, 3 … 997 bytes per write, cycling: many boundaries, inside headers and the body alike.
            let end = min(bytes.count, offset + size)
            try host.write(Array(bytes[offset..<end]))
            offset = end
            size = size % 997 + 1
        }
        let reply = try host.nextMessage()
        #expect(reply["id"] == 9)
        #expect(reply["result"]?["payload"]?.stringValue == payload)
        host.closeInput()
        #expect(try host.readToEndOfOutput().isEmpty)
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("1,000 pipelined host.ping requests are all answered, each id exactly once", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func pipelinedPings(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        // Written without waiting for answers; the harness drains stdout while writing.
        try host.send((1...1_000).map { H.request($0, "host.ping") })
        var seen: [Int64: Int] = [:]
        for _ in 1...1_000 {
            let reply = try host.nextMessage()
            #expect(reply["result"] == "pong")
            if let id = reply["id"]?.int64Value { seen[id, default: 0] += 1 }
        }
        #expect(seen.count == 1_000)
        #expect(seen.values.allSatisfy { $0 == 1 })
        #expect(Set(seen.keys) == Set(1...1_000))
        host.closeInput()
        #expect(try host.readToEndOfOutput().isEmpty, "nothing beyond the 1,000 answers")
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("an invalid line gets -32700 with id null and the next line is answered normally")
    func parseErrorKeepsSync() throws {
        let host = try SpawnedHost()
        try host.write(#"{"jsonrpc":"2.0","id":1,"method":"#.utf8 + [0x0A])
        let error = try host.nextMessage()
        H.expectWellFormedResponse(error)
        #expect(H.errorCode(error) == -32700)
        #expect(error["id"] == .null)
        try host.send(H.request(2, "host.ping"))
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 2, "result": "pong"])
    }
}

@Suite("LSP framing of the binary over real pipes", .offCooperativePool)
struct BinaryLSPTests {
    typealias H = BinaryHarness

    /// The exact LSP frame the host should write for `json`.
    static func lspFrame(_ json: String) -> String { "Content-Length: \(json.utf8.count)\r\n\r\n\(json)" }

    @Test("LSP framing is detected from the first bytes and replies carry Content-Length")
    func detectedFromFirstBytes() throws {
        let host = try SpawnedHost(wire: .lsp)
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 1, "result": "pong"])
        try host.send(H.request(2, "host.echo", #"{"é":"😀"}"#))
        let echo = try host.nextMessage()
        #expect(echo["result"] == ["é": "😀"])
        host.closeInput()
        try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        let expected = Self.lspFrame(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        #expect(host.stdoutText.hasPrefix(expected), "replies are framed byte-for-byte as LSP")
        #expect(!host.stdoutText.contains("\n{"), "no NDJSON lines on an LSP stream")
    }

    @Test("`initialize` over LSP reports the detected framing")
    func initializeReportsFraming() throws {
        let host = try SpawnedHost(wire: .lsp)
        try host.send(H.request(1, "initialize", #"{"clientInfo":{"name":"test"}}"#))
        let reply = try host.nextMessage()
        H.expectWellFormedResponse(reply)
        #expect(reply["result"]?["capabilities"]?["framing"] == "lsp")
    }

    @Test("`--framing lsp` forces LSP even when the stream does not start with a header")
    func forcedLSP() throws {
        // Detection would pick NDJSON for this stream; forced LSP skips the junk and resynchronises on the header.
        let host = try SpawnedHost(arguments: ["--framing", "lsp"], wire: .lsp)
        try host.write("junk\r\n")
        try host.send(H.request(1, "host.ping"))
        var replies: [JSONValue] = []
        while replies.last?["id"] != 1 { replies.append(try host.nextMessage()) }
        #expect(replies.last == ["jsonrpc": "2.0", "id": 1, "result": "pong"])
        #expect(replies.dropLast().allSatisfy { H.errorCode($0) == -32700 || H.errorCode($0) == -32600 })
        host.closeInput()
        try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(host.stdoutText.hasPrefix("Content-Length: "))
    }

    @Test("`--framing ndjson` with LSP input answers NDJSON errors promptly instead of hanging")
    func forcedNDJSONWithLSPInput() throws {
        let host = try SpawnedHost(arguments: ["--framing", "ndjson"], wire: .ndjson)
        try host.write(H.frame(H.request(1, "host.ping"), .lsp))
        // The client is still waiting (stdin open): the header line must already have been answered.
        let first = try host.nextMessage()
        H.expectWellFormedResponse(first)
        #expect(H.errorCode(first) == -32700)
        #expect(first["id"] == .null)
        host.closeInput()
        let rest = try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(!host.stdoutText.contains("Content-Length"), "replies stay NDJSON: \(host.stdoutText)")
        rest.forEach { H.expectWellFormedResponse($0) }
    }

    @Test("the Content-Length header name is case-insensitive and Content-Type is accepted")
    func headerCaseAndContentType() throws {
        let host = try SpawnedHost(wire: .lsp)
        let ping = H.request(1, "host.ping")
        let echo = H.request(2, "host.echo", #"{"ok":true}"#)
        let third = H.request(3, "host.ping")
        var input = "content-length: \(ping.utf8.count)\r\n\r\n\(ping)"
        input += "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH: \(echo.utf8.count)\r\n\r\n\(echo)"
        input += "Content-Length:\(third.utf8.count)\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n\(third)"
        try host.write(input)
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 1, "result": "pong"])
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 2, "result": ["ok": true]])
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 3, "result": "pong"])
    }

    @Test("a stream starting with Content-Type is detected as LSP")
    func detectedFromContentType() throws {
        let host = try SpawnedHost(wire: .lsp)
        let ping = H.request(1, "host.ping")
        try host.write("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: \(ping.utf8.count)\r\n\r\n\(ping)")
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 1, "result": "pong"])
    }

    @Test("a non-numeric Content-Length is a -32700 error and the next message is still answered")
    func nonNumericContentLength() throws {
        let host = try SpawnedHost(wire: .lsp)
        try host.write("Content-Length: ten\r\n\r\n" + H.request(1, "host.ping"))
        let error = try host.nextMessage()
        H.expectWellFormedResponse(error)
        #expect(H.errorCode(error) == -32700)
        #expect(error["id"] == .null)
        try host.send(H.request(2, "host.ping"))
        let next = try host.nextMessage()
        #expect(next == ["jsonrpc": "2.0", "id": 2, "result": "pong"], "the stream resynchronises on the next header")
        host.closeInput()
        #expect(try host.readToEndOfOutput().isEmpty)
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("a Content-Length larger than what arrives before EOF is answered with an error")
    func lyingLengthAtEOF() throws {
        let body = H.request(1, "host.ping")
        let input = "Content-Length: \(body.utf8.count + 50)\r\n\r\n\(body)"
        let run = try H.run([], input: Array(input.utf8), wire: .lsp)
        let host = run.stdout
        #expect(host.hasPrefix("Content-Length: "), "the error is framed as LSP: \(host.debugDescription)")
        #expect(host.contains(#""code":-32700"#) || host.contains(#""code":-32600"#), "\(host)")
        #expect(!host.contains(#""result":"pong""#), "the truncated body is not run")
        #expect(run.termination == .exited(0))
    }

    @Test("a Content-Length larger than the body is answered within the frame timeout while the client waits, under the request's id")
    func lyingLengthWhileWaiting() throws {
        let host = try SpawnedHost(arguments: ["--frame-timeout", "300"], wire: .lsp)
        let body = H.request(1, "host.ping")
        let start = H.nowMilliseconds()
        try host.write("Content-Length: \(body.utf8.count + 50)\r\n\r\n\(body)")
        // The client keeps stdin open and waits: the answer can only come from the frame timeout.
        let error = try host.nextMessage()
        let elapsed = H.nowMilliseconds() - start
        H.expectWellFormedResponse(error)
        #expect(H.errorCode(error) == -32700)
        #expect(error["id"] == 1, "the id had arrived: the client waiting for it hears")
        // A lower bound holds on any machine (load only adds time); no upper bound but the hang guard.
        #expect(elapsed >= 250, "answered after the frame timeout, not before (\(elapsed) ms)")
        // The stream is back in sync.
        try host.send(H.request(2, "host.ping"))
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 2, "result": "pong"])
    }
}

@Suite("Message size limit over real pipes", .offCooperativePool)
struct BinaryLimitTests {
    typealias H = BinaryHarness

    @Test("an oversized request is answered -32600 with its id naming size and limit, and the next one normally",
          arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func oversizedMessage(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(arguments: ["--max-message-bytes", "1000"], wire: wire)
        let big = H.request(1, "host.echo", #"{"s":"\#(String(repeating: "x", count: 5_000))"}"#)
        let size = big.utf8.count
        try host.send(big)
        let error = try host.nextMessage()
        H.expectWellFormedResponse(error)
        #expect(H.errorCode(error) == -32600)
        #expect(error["id"] == 1)
        let message = error["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("1000"), "names the limit: \(message)")
        #expect(message.contains("\(size)"), "names the size \(size): \(message)")
        #expect(error["error"]?["data"]?["limit"] == 1000)
        #expect(error["error"]?["data"]?["size"] == .integer(Int64(size)))

        try host.send(H.request(2, "host.echo", #"{"s":"small"}"#))
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 2, "result": ["s": "small"]])
        host.closeInput()
        #expect(try host.readToEndOfOutput().isEmpty)
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("oversized requests far over the limit keep their ids, first or last; a batch, an id in params get null; the stream stays in sync",
          arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func oversizedIDs(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(arguments: ["--max-message-bytes", "1000"], wire: wire)
        let fill = String(repeating: "x", count: 100_000)
        let messages = [
            #"{"jsonrpc":"2.0","id":"first","method":"host.echo","params":{"s":"\#(fill)"}}"#,
            #"{"jsonrpc":"2.0","method":"host.echo","params":{"s":"\#(fill)"},"id":11}"#,
            "[" + H.request(12, "host.echo", #"{"s":"\#(fill)"}"#) + "]",
            #"{"jsonrpc":"2.0","method":"host.echo","params":{"s":"\#(fill)","id":13}}"#,
            H.request(14, "host.ping"),
        ]
        try host.send(messages)
        let answers = try (0..<5).map { _ in try host.nextMessage() }
        answers.forEach { H.expectWellFormedResponse($0) }
        #expect(answers.map { $0["id"] } == ["first", 11, .null, .null, 14], "\(answers)")
        #expect(answers.prefix(4).allSatisfy { H.errorCode($0) == -32600 && $0["error"]?["data"]?["limit"] == 1000 })
        #expect(answers[4]["result"] == "pong")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("a message exactly at the limit is accepted", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func messageAtLimit(wire: BinaryHarness.Wire) throws {
        let empty = H.request(1, "host.echo", #"{"s":""}"#)
        let padded = H.request(1, "host.echo", #"{"s":"\#(String(repeating: "y", count: 1_000 - empty.utf8.count))"}"#)
        #expect(padded.utf8.count == 1_000)
        let host = try SpawnedHost(arguments: ["--max-message-bytes", "1000"], wire: wire)
        try host.send(padded)
        let reply = try host.nextMessage()
        #expect(reply["result"]?["s"]?.stringValue?.count == 1_000 - empty.utf8.count)
    }

    @Test("an oversized message is skipped without being buffered whole", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func oversizedNotBuffered(wire: BinaryHarness.Wire) throws {
        // --frame-timeout 0: no LSP frame time-out, which would otherwise cut the message short whenever two of
        // its pieces came more than 5 s apart (a loaded machine, a sanitizer) and answer the rest as garbage.
        let host = try SpawnedHost(arguments: ["--max-message-bytes", "1000", "--frame-timeout", "0"], wire: wire)
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage()["result"] == "pong")
        let before = try #require(H.peakResidentBytes(of: host.pid))

        // 48 MiB of one message, written in 1 MiB pieces.
        let size = 48 << 20
        let opening = Array(#"{"jsonrpc":"2.0","id":2,"method":"host.echo","params":{"s":""#.utf8)
        let closing = Array(#""}}"#.utf8)
        let fill = size - opening.count - closing.count
        if wire == .lsp { try host.write("Content-Length: \(size)\r\n\r\n") }
        try host.write(opening)
        let piece = [UInt8](repeating: UInt8(ascii: "z"), count: 1 << 20)
        var left = fill
        while left > 0 {
            let count = min(left, piece.count)
            try host.write(Array(piece[..<count]), within: 20_000)
            left -= count
        }
        try host.write(closing + (wire == .ndjson ? [0x0A] : []))
        try host.send(H.request(3, "host.ping"))

        let error = try host.nextMessage()
        #expect(H.errorCode(error) == -32600)
        #expect(error["id"] == 2)
        #expect(error["error"]?["data"]?["size"] == .integer(Int64(size)))
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 3, "result": "pong"])
        let after = try #require(H.peakResidentBytes(of: host.pid))
        #expect(after - before < 16 << 20, "peak RSS grew by \(after - before) bytes for a 48 MiB message over a 1000-byte limit")
    }
}

@Suite("Only frames reach stdout", .offCooperativePool)
struct BinaryStdoutHygieneTests {
    typealias H = BinaryHarness

    enum LogSetting: String, CaseIterable, CustomTestStringConvertible {
        case flagTrace, environmentDebug
        var testDescription: String { self == .flagTrace ? "--log-level trace" : "SWITCHBOARD_LOG_LEVEL=debug" }
    }

    @Test("with verbose logging stdout holds only valid frames and the logs go to stderr",
          arguments: LogSetting.allCases, [BinaryHarness.Wire.ndjson, .lsp])
    func verboseLogging(setting: LogSetting, wire: BinaryHarness.Wire) throws {
        let arguments = setting == .flagTrace ? ["--log-level", "trace"] : []
        let environment: [String: String?] = setting == .environmentDebug ? ["SWITCHBOARD_LOG_LEVEL": "debug"] : [:]
        let host = try SpawnedHost(arguments: arguments, wire: wire, environment: environment)
        try host.send([
            H.request(1, "initialize", #"{"processId":null}"#),
            H.request(2, "host.ping"),
            H.request(3, "no.such"),
            "{not json",
            H.request(4, "host.sleep", #"{"ms":30,"steps":3,"_meta":{"progressToken":"p"}}"#),
            #"[{"jsonrpc":"2.0","id":5,"method":"host.ping"},{"jsonrpc":"2.0","method":"host.ping"}]"#,
            H.request(6, "host.sleep", #"{"ms":"x"}"#),
        ])
        host.closeInput()
        // The harness decodes stdout strictly: any stray byte that is not a frame fails here.
        let messages = try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        let progress = messages.filter { $0["method"] == "$/progress" }
        #expect(progress.count == 3)
        let responses = messages.filter { $0["method"] == nil }
        #expect(responses.count == 7, "6 answers, one -32700 and one batch array: \(responses)")
        #expect(!host.stderrBytes.isEmpty, "the logs went to stderr")
        // The default level is warning: a debug line shows the setting took effect.
        let logs = host.stderrText
        #expect(logs.contains(" debug "), "stderr has debug lines under \(setting.testDescription): \(logs.prefix(400))")
    }
}
