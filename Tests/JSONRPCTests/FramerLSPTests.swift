import Testing
@testable import JSONRPC

@Suite("Framer LSP")
struct FramerLSPTests {
    @Test("a single message is read from its headers and body")
    func singleMessage() {
        expectFramerEvents(framerLSPFrame("{\"jsonrpc\":\"2.0\",\"id\":1}"), framing: .lsp, [.message("{\"jsonrpc\":\"2.0\",\"id\":1}")])
    }

    @Test("many messages in one chunk each come out, in order")
    func manyMessages() {
        let bodies = (0..<300).map { "{\"id\":\($0),\"params\":[\(String(repeating: "1,", count: $0 % 7))0]}" }
        expectFramerEvents(
            bodies.map(framerLSPFrame).joined(), framing: .lsp,
            chunkings: [.whole, .bytewise, .fixed(997), .random(seed: 3)], bodies.map { .message($0) })
    }

    @Test("header names are case-insensitive; Content-Type and unknown headers are ignored")
    func headerNames() {
        expectFramerEvents(
            "content-type: application/vscode-jsonrpc; charset=utf-8\r\nX-Whatever: 1\r\nCONTENT-LENGTH: 2\r\n\r\n{}"
                + "cOnTeNt-LeNgTh:3\r\n\r\n[1]",
            framing: .lsp,
            [.message("{}"), .message("[1]")])
    }

    @Test("bare LF line ends are accepted, also mixed with CRLF")
    func bareLF() {
        expectFramerEvents(
            "Content-Length: 2\n\n{}Content-Length: 2\r\n\n[]Content-Length: 2\nContent-Type: x\r\n\r\n\"\"",
            framing: .lsp,
            [.message("{}"), .message("[]"), .message("\"\"")])
    }

    @Test("spaces and tabs around the Content-Length value are allowed")
    func valueWhitespace() {
        expectFramerEvents("Content-Length:  \t2 \t\r\n\r\n{}Content-Length :2\r\n\r\n[]", framing: .lsp, [.message("{}"), .message("[]")])
    }

    @Test("a body holding CRLFCRLF and Content-Length: inside a JSON string is read by its length alone")
    func bodyWithHeaderText() {
        let body = "{\"text\":\"a\r\n\r\nContent-Length: 5\r\n\r\nhello\"}"
        expectFramerEvents(framerLSPFrame(body) + framerLSPFrame("{}"), framing: .lsp, [.message(body), .message("{}")])
        expectFramerEvents(framerLSPFrame(body) + framerLSPFrame("{}"), detected: .lsp, [.message(body), .message("{}")])
    }

    @Test("Content-Length 0 gives an empty message")
    func emptyBody() {
        expectFramerEvents("Content-Length: 0\r\n\r\n" + framerLSPFrame("{}"), framing: .lsp, [.message(""), .message("{}")])
        expectFramerEvents(framerLSPFrame("{}") + "Content-Length: 0\r\n\r\n", framing: .lsp, [.message("{}"), .message("")])
    }

    @Test("whitespace between messages is skipped")
    func whitespaceBetweenMessages() {
        expectFramerEvents(
            "\r\n \t" + framerLSPFrame("{}") + "\r\n\r\n  " + framerLSPFrame("[]") + "\n",
            framing: .lsp, [.message("{}"), .message("[]")])
    }

    @Test("each malformed Content-Length is an invalid header with a clear reason, and the next message is read")
    func invalidContentLengths() {
        let cases: [(String, String)] = [
            ("abc", "Content-Length \"abc\" is not a number"),
            ("-5", "Content-Length \"-5\" is not a number"),
            ("", "Content-Length header has no value"),
            ("  \t ", "Content-Length header has no value"),
            ("12x", "Content-Length \"12x\" is not a number"),
            ("+5", "Content-Length \"+5\" is not a number"),
            ("1 2", "Content-Length \"1 2\" is not a number"),
            ("0x10", "Content-Length \"0x10\" is not a number"),
            ("1:", "Content-Length \"1:\" is not a number"),
            ("２", "Content-Length \"２\" is not a number"),
            ("99999999999999999999999", "Content-Length \"99999999999999999999999\" is too large"),
            ("9223372036854775808", "Content-Length \"9223372036854775808\" is too large"),
        ]
        for (value, reason) in cases {
            expectFramerEvents(
                "Content-Length: \(value)\r\n\r\n{\"broken\":1}" + framerLSPFrame("{\"ok\":1}"),
                framing: .lsp, [.invalidHeader(reason), .message("{\"ok\":1}")])
        }
    }

    @Test("a Content-Length that fits in Int but is over the limit is oversized, not invalid")
    func hugeButValid() {
        expectFramerEvents("Content-Length: 9223372036854775807\r\n\r\n{}", framing: .lsp, maxMessageBytes: 100,
                     [.oversized(Int.max, limit: 100)])
    }

    @Test("a header block without Content-Length is invalid")
    func missingContentLength() {
        expectFramerEvents(
            "Content-Type: application/json\r\n\r\n{\"a\":1}" + framerLSPFrame("{}"),
            framing: .lsp, [.invalidHeader("missing Content-Length header"), .message("{}")])
    }

    @Test("a header line without a colon is invalid")
    func noColon() {
        expectFramerEvents(
            "Content-Length 2\r\n\r\n{}" + framerLSPFrame("[]"),
            framing: .lsp, [.invalidHeader("header line \"Content-Length 2\" has no colon"), .message("[]")])
    }

    @Test("two different Content-Length headers are invalid; two equal ones are fine")
    func duplicateContentLength() {
        expectFramerEvents(
            "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + "Content-Length: 2\r\ncontent-length: 2\r\n\r\n[]",
            framing: .lsp, [.invalidHeader("conflicting Content-Length headers 2 and 3"), .message("[]")])
    }

    @Test("after an invalid header, bytes are discarded up to the next Content-Length:, in any case, even mid-line")
    func resync() {
        expectFramerEvents(
            "Content-Length: abc\r\n\r\n{\"body\":\"no newline\"}garbage CONTENT-LENGTH \r\nconTent-LengtH: 2\r\n\r\n{}",
            framing: .lsp, [.invalidHeader("Content-Length \"abc\" is not a number"), .message("{}")])
        // "Content-Length:" with its first bytes repeated ("CContent-...") is still found.
        expectFramerEvents(
            "X\r\n\r\nxxCContent-Content-LengthContent-Length:2\r\n\r\n{}",
            framing: .lsp, [.invalidHeader("header line \"X\" has no colon"), .message("{}")])
        // Another broken header found by resynchronising is reported too, then resynchronised again.
        expectFramerEvents(
            "Bad\r\n\r\nContent-Length: x\r\n\r\n" + framerLSPFrame("{}"),
            framing: .lsp,
            [.invalidHeader("header line \"Bad\" has no colon"), .invalidHeader("Content-Length \"x\" is not a number"), .message("{}")])
    }

    @Test("input that ends while resynchronising gives no further event")
    func resyncAtEnd() {
        expectFramerEvents("Content-Length: abc\r\n\r\n{}Content-Len", framing: .lsp, [.invalidHeader("Content-Length \"abc\" is not a number")])
    }

    @Test("a header block longer than 8 KiB is invalid and is not buffered; one of exactly 8 KiB is fine")
    func headerBlockLimit() {
        // "X-Pad: " + padding + "\r\n" + "Content-Length: 2\r\n" + "\r\n"
        let fixed = "X-Pad: \r\n".utf8.count + "Content-Length: 2\r\n".utf8.count + 2
        let exact = "X-Pad: " + String(repeating: "p", count: 8192 - fixed) + "\r\nContent-Length: 2\r\n\r\n{}"
        expectFramerEvents(exact, framing: .lsp, chunkings: [.whole, .bytewise, .random(seed: 5), .fixed(1000)], [.message("{}")])
        let over = "X-Pad: " + String(repeating: "p", count: 8193 - fixed) + "\r\nContent-Length: 2\r\n\r\n{}" + framerLSPFrame("[]")
        expectFramerEvents(
            over, framing: .lsp, chunkings: [.whole, .bytewise, .random(seed: 5), .fixed(1000)],
            [.invalidHeader("header block is longer than 8192 bytes"), .message("[]")])
        // Resynchronising starts right after the byte that made the block too long.
        let cut = "X-Pad: " + String(repeating: "p", count: 8193 - 7) + "Content-Length: 2\r\n\r\n{}"
        expectFramerEvents(
            cut, framing: .lsp, chunkings: [.whole, .bytewise, .random(seed: 7), .fixed(1000)],
            [.invalidHeader("header block is longer than 8192 bytes"), .message("{}")])
        // One endless header line: reported once the block passes 8 KiB, without buffering it all.
        let endless = "X-Pad: " + String(repeating: "p", count: 100_000) + "\r\n\r\n" + framerLSPFrame("[]")
        expectFramerEvents(
            endless, framing: .lsp, chunkings: [.whole, .fixed(1024), .random(seed: 6)],
            [.invalidHeader("header block is longer than 8192 bytes"), .message("[]")])
    }

    @Test("an oversized body is reported and skipped without buffering, then the next message is read")
    func oversizedBody() {
        let big = "{\"x\":\"" + String(repeating: "b", count: 200_000) + "\"}"
        let input = framerLSPFrame("{}") + framerLSPFrame(big) + framerLSPFrame("[]")
        expectFramerEvents(
            input, framing: .lsp, maxMessageBytes: 1000, chunkings: [.whole, .fixed(1024), .fixed(1), .random(seed: 2)],
            [.message("{}"), .oversized(big.utf8.count, limit: 1000), .message("[]")])
        let streamed = framerRun(input, framing: .lsp, maxMessageBytes: 1000, chunking: .fixed(1024))
        #expect(streamed.maxBuffered < 100)
    }

    @Test("a body cut short by end of input is truncated")
    func truncatedAtFinish() {
        expectFramerEvents(framerLSPFrame("{}") + "Content-Length: 10\r\n\r\n{\"a\":", framing: .lsp, [.message("{}"), .truncated(expected: 10, received: 5)])
        expectFramerEvents("Content-Length: 10\r\n\r\n", framing: .lsp, [.truncated(expected: 10, received: 0)])
    }

    @Test("an oversized body cut short by end of input gives only its oversized event")
    func oversizedTruncated() {
        expectFramerEvents("Content-Length: 500\r\n\r\n{\"a\":", framing: .lsp, maxMessageBytes: 100, [.oversized(500, limit: 100)])
    }

    @Test("input ending inside a header block is an invalid header, unless only whitespace is left")
    func partialHeaderAtFinish() {
        expectFramerEvents(framerLSPFrame("{}") + "Content-Length: 1", framing: .lsp, [.message("{}"), .invalidHeader("input ended inside a header block")])
        expectFramerEvents(framerLSPFrame("{}") + "Content-Length: 1\r\n", framing: .lsp, [.message("{}"), .invalidHeader("input ended inside a header block")])
        expectFramerEvents(framerLSPFrame("{}") + "\r\n  \t\r\n", framing: .lsp, [.message("{}")])
        expectFramerEvents("", framing: .lsp, [])
    }

    @Test("abandonPartialMessage truncates a partial body and returns to reading headers")
    func abandonLSP() {
        var framer = Framer(framing: .lsp, maxMessageBytes: 100)
        var events: [FramerTestEvent] = []
        func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } } }
        func abandon() { framer.abandonPartialMessage { events.append(FramerTestEvent($0)) } }

        abandon()  // nothing received: no event
        feed("Content-Length: 10\r\n\r\n{\"a\"")
        #expect(framer.isMidMessage)
        abandon()
        #expect(!framer.isMidMessage)
        #expect(framer.bufferedByteCount == 0)
        feed(framerLSPFrame("{}") + "Content-Len")
        abandon()
        feed("Content-Length: 500\r\n\r\nxyz")
        #expect(framer.isMidMessage)
        abandon()  // oversized body being skipped: already reported, nothing more
        feed(framerLSPFrame("[]"))
        #expect(events == [
            .truncated(expected: 10, received: 4), .message("{}"),
            .invalidHeader("incomplete header block was abandoned"), .oversized(500, limit: 100), .message("[]"),
        ])
    }

    @Test("isMidMessage follows headers and body")
    func midMessageLSP() {
        var framer = Framer(framing: .lsp, maxMessageBytes: 100)
        func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { framer.consume($0) { _ in } } }
        #expect(!framer.isMidMessage)
        feed("\r\n")
        #expect(!framer.isMidMessage)
        feed("Content-")
        #expect(framer.isMidMessage)
        feed("Length: 2\r\n\r\n{")
        #expect(framer.isMidMessage)
        feed("}")
        #expect(!framer.isMidMessage)
        feed("Content-Length: x\r\n")
        #expect(!framer.isMidMessage)  // resynchronising: no message under way
    }
}
