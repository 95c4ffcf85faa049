import Testing
@testable import JSONRPC

@Suite("Framer NDJSON")
struct FramerNDJSONTests {
    @Test("many messages in one chunk each come out, in order")
    func manyMessages() {
        let bodies = (0..<500).map { "{\"jsonrpc\":\"2.0\",\"id\":\($0),\"method\":\"ping\"}" }
        let input = bodies.map { $0 + "\n" }.joined()
        expectFramerEvents(input, framing: .ndjson, chunkings: [.whole, .bytewise, .fixed(1000), .random(seed: 9)], bodies.map { .message($0) })
    }

    @Test("a CR before the newline is dropped; a CR elsewhere is kept")
    func crlfLines() {
        expectFramerEvents(
            "{\"a\":1}\r\n{\"b\":2}\n{\"c\":\r3}\r\n",
            framing: .ndjson,
            [.message("{\"a\":1}"), .message("{\"b\":2}"), .message("{\"c\":\r3}")])
    }

    @Test("only one CR is dropped before the newline")
    func onlyOneCR() {
        expectFramerEvents("{\"a\":1}\r\r\n", framing: .ndjson, [.message("{\"a\":1}\r")])
    }

    @Test("empty and whitespace-only lines are ignored")
    func blankLines() {
        expectFramerEvents(
            "\n\n{\"a\":1}\n\n   \n\t\r\n \t \r\n \r \n\r\r\n{\"b\":2}\n\r\n",
            framing: .ndjson,
            [.message("{\"a\":1}"), .message("{\"b\":2}")])
    }

    @Test("a line with text keeps its own leading and trailing spaces")
    func innerWhitespaceKept() {
        expectFramerEvents("{}\n  {\"a\": 1} \n", framing: .ndjson, [.message("{}"), .message("  {\"a\": 1} ")])
    }

    @Test("leading whitespace before the first message is skipped")
    func leadingWhitespace() {
        expectFramerEvents(" \t\r\n  {\"a\":1}\n", framing: .ndjson, [.message("{\"a\":1}")])
    }

    @Test("a last message without a final newline is delivered at finish, not before")
    func trailingMessage() {
        let unfinished = framerRun("{\"a\":1}\n{\"b\":2}", framing: .ndjson, finish: false)
        #expect(unfinished.events == [.message("{\"a\":1}")])
        expectFramerEvents("{\"a\":1}\n{\"b\":2}", framing: .ndjson, [.message("{\"a\":1}"), .message("{\"b\":2}")])
        expectFramerEvents("{\"a\":1}\n{\"b\":2}\r", framing: .ndjson, [.message("{\"a\":1}"), .message("{\"b\":2}")])
    }

    @Test("trailing whitespace without a newline gives nothing at finish")
    func trailingWhitespace() {
        expectFramerEvents("{\"a\":1}\n  \t", framing: .ndjson, [.message("{\"a\":1}")])
        expectFramerEvents("{\"a\":1}\n\r", framing: .ndjson, [.message("{\"a\":1}")])
    }

    @Test("an oversized line is reported with its full length, then the next line is read normally")
    func oversizedThenNormal() {
        let long = "{\"x\":\"" + String(repeating: "a", count: 100) + "\"}"
        expectFramerEvents(
            long + "\n{\"b\":2}\n", framing: .ndjson, maxMessageBytes: 64,
            [.oversized(long.utf8.count, limit: 64), .message("{\"b\":2}")])
        expectFramerEvents(
            "{}\n" + long + "\r\n{\"b\":2}\n", framing: .ndjson, maxMessageBytes: 64,
            [.message("{}"), .oversized(long.utf8.count, limit: 64), .message("{\"b\":2}")])
    }

    @Test("a line exactly at the limit is delivered, one byte over is oversized, with or without CR")
    func limitBoundary() {
        let atLimit = String(repeating: "a", count: 16)
        let over = String(repeating: "b", count: 17)
        for lineEnd in ["\n", "\r\n"] {
            expectFramerEvents(
                atLimit + lineEnd + over + lineEnd + atLimit + lineEnd, framing: .ndjson, maxMessageBytes: 16,
                [.message(atLimit), .oversized(17, limit: 16), .message(atLimit)])
        }
        // At end of input too.
        expectFramerEvents(atLimit + "\n" + over, framing: .ndjson, maxMessageBytes: 16, [.message(atLimit), .oversized(17, limit: 16)])
        expectFramerEvents(over + "\r", framing: .ndjson, maxMessageBytes: 16, [.oversized(17, limit: 16)])
        expectFramerEvents(atLimit + "\r", framing: .ndjson, maxMessageBytes: 16, [.message(atLimit)])
    }

    @Test("a long line streamed in 1 KiB chunks is counted, not stored")
    func oversizedNotBuffered() {
        let limit = 4096
        let longLength = 1 << 20
        var framer = Framer(framing: .ndjson, maxMessageBytes: limit)
        var events: [FramerTestEvent] = []
        var maxBuffered = 0
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1024)
        var sent = 0
        piece.withUnsafeBytes { bytes in
            while sent < longLength {
                framer.consume(bytes) { events.append(FramerTestEvent($0)) }
                sent += bytes.count
                maxBuffered = max(maxBuffered, framer.bufferedByteCount)
                #expect(framer.isMidMessage)
            }
        }
        #expect(maxBuffered <= limit + 1)
        #expect(events.isEmpty)
        Array("\r\n{\"next\":true}\n".utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        #expect(events == [.oversized(longLength, limit: limit), .message("{\"next\":true}")])
        #expect(framer.bufferedByteCount == 0)
    }

    @Test("an oversized last line without newline is reported at finish")
    func oversizedAtFinish() {
        expectFramerEvents("{}\n" + String(repeating: "z", count: 300), framing: .ndjson, maxMessageBytes: 100, [.message("{}"), .oversized(300, limit: 100)])
    }

    @Test("a whitespace-only line longer than the limit is still reported as oversized")
    func longBlankLine() {
        expectFramerEvents(String(repeating: " ", count: 3) + "{}\n" + String(repeating: " ", count: 50) + "\n", framing: .ndjson, maxMessageBytes: 10,
                     [.message("{}"), .oversized(50, limit: 10)])
    }

    @Test("with forced NDJSON, LSP-looking text is just lines")
    func forcedNDJSON() {
        expectFramerEvents(
            "Content-Length: 2\r\n\r\n{}\n", framing: .ndjson, detected: .ndjson,
            [.message("Content-Length: 2"), .message("{}")])
    }

    @Test("abandonPartialMessage delivers a partial line as it is, then reads a new line")
    func abandonNDJSON() {
        var framer = Framer(framing: .ndjson, maxMessageBytes: 32)
        var events: [FramerTestEvent] = []
        func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } } }
        feed("{\"a\":1}\n{\"b\"")
        #expect(framer.isMidMessage)
        framer.abandonPartialMessage { events.append(FramerTestEvent($0)) }
        #expect(!framer.isMidMessage)
        #expect(framer.bufferedByteCount == 0)
        feed("{\"c\":3}\n" + String(repeating: "q", count: 40))
        framer.abandonPartialMessage { events.append(FramerTestEvent($0)) }
        framer.abandonPartialMessage { events.append(FramerTestEvent($0)) }  // nothing left: no event
        feed("{}\n")
        #expect(events == [.message("{\"a\":1}"), .message("{\"b\""), .message("{\"c\":3}"), .oversized(40, limit: 32), .message("{}")])
    }

    @Test("isMidMessage is false between lines and for a pending blank line")
    func midMessageNDJSON() {
        var framer = Framer(framing: .ndjson, maxMessageBytes: 32)
        #expect(!framer.isMidMessage)
        Array("{}\n  ".utf8).withUnsafeBytes { framer.consume($0) { _ in } }
        #expect(!framer.isMidMessage)
        Array("{".utf8).withUnsafeBytes { framer.consume($0) { _ in } }
        #expect(framer.isMidMessage)
    }
}
