import Testing
@testable import JSONRPC

@Suite("Framer detection and framing")
struct FramerDetectionTests {
    @Test("a stream starting with Content-Length is LSP, after leading whitespace too")
    func detectLSP() {
        expectFramerEvents(framerLSPFrame("{}"), detected: .lsp, [.message("{}")])
        expectFramerEvents(" \r\n\t\n" + framerLSPFrame("{}"), detected: .lsp, [.message("{}")])
    }

    @Test("detection ignores case: CONTENT-LENGTH and Content-Type first both mean LSP")
    func detectCaseInsensitive() {
        expectFramerEvents("CONTENT-LENGTH: 2\r\n\r\n{}", detected: .lsp, [.message("{}")])
        expectFramerEvents("Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", detected: .lsp, [.message("{}")])
        expectFramerEvents("cOnTeNt-x: 1\r\n\r\n", detected: .lsp, [.invalidHeader("missing Content-Length header")])
    }

    @Test("anything else is NDJSON, after leading whitespace too")
    func detectNDJSON() {
        expectFramerEvents("{\"a\":1}\n", detected: .ndjson, [.message("{\"a\":1}")])
        expectFramerEvents("\r\n  \n{\"a\":1}\n", detected: .ndjson, [.message("{\"a\":1}")])
        expectFramerEvents("contents\n", detected: .ndjson, [.message("contents")])
        expectFramerEvents("content\n{}\n", detected: .ndjson, [.message("content"), .message("{}")])
        expectFramerEvents("[1]\n", detected: .ndjson, [.message("[1]")])
        // Only letters are case-folded: CR is not "-" even though 0x0D | 0x20 is.
        expectFramerEvents("content\r\n{}\n", detected: .ndjson, [.message("content"), .message("{}")])
    }

    @Test("detection waits while the bytes are still a prefix of content-")
    func detectionWaits() {
        var framer = Framer(framing: nil, maxMessageBytes: 100)
        var events: [FramerTestEvent] = []
        func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } } }
        feed("  \n")
        #expect(framer.framing == nil)
        #expect(!framer.isMidMessage)
        for character in "Content" {
            feed(String(character))
            #expect(framer.framing == nil)
        }
        #expect(framer.isMidMessage)
        framer.abandonPartialMessage { events.append(FramerTestEvent($0)) }  // nothing to abandon while detecting
        feed("-")
        #expect(framer.framing == .lsp)
        feed("Length: 2\r\n\r\n{}")
        #expect(events == [.message("{}")])

        var other = Framer(framing: nil, maxMessageBytes: 100)
        Array("cont".utf8).withUnsafeBytes { other.consume($0) { _ in } }
        #expect(other.framing == nil)
        Array("x".utf8).withUnsafeBytes { other.consume($0) { _ in } }
        #expect(other.framing == .ndjson)
    }

    @Test("input ending while still a prefix of content- is NDJSON")
    func detectionAtFinish() {
        expectFramerEvents("  Conte", detected: .ndjson, [.message("Conte")])
        expectFramerEvents("c", detected: .ndjson, [.message("c")])
    }

    @Test("input of only whitespace leaves the framing undetected and gives no event")
    func onlyWhitespace() {
        let run = framerRun(" \r\n\t \n")
        #expect(run.framing == nil)
        #expect(run.events.isEmpty)
    }

    @Test("a forced framing is used from the start, and leading whitespace is still skipped")
    func forced() {
        #expect(Framer(framing: .lsp, maxMessageBytes: 1).framing == .lsp)
        #expect(Framer(framing: .ndjson, maxMessageBytes: 1).framing == .ndjson)
        #expect(Framer(framing: nil, maxMessageBytes: 1).framing == nil)
        expectFramerEvents("\r\n " + framerLSPFrame("{}"), framing: .lsp, detected: .lsp, [.message("{}")])
        expectFramerEvents("{}\n", framing: .lsp, detected: .lsp, [.invalidHeader("header line \"{}\" has no colon")])
        expectFramerEvents(framerLSPFrame("{}"), framing: .ndjson, detected: .ndjson, [.message("Content-Length: 2"), .message("{}")])
    }

    @Test("appendFrame writes body and newline for NDJSON")
    func appendNDJSON() {
        var output = Array("prefix".utf8)
        Array("{\"a\":1}".utf8).withUnsafeBytes { Framing.ndjson.appendFrame(body: $0, to: &output) }
        #expect(output == Array("prefix{\"a\":1}\n".utf8))
        var empty: [UInt8] = []
        Framing.ndjson.appendFrame(body: UnsafeRawBufferPointer(start: nil, count: 0), to: &empty)
        #expect(empty == [0x0A])
    }

    @Test("appendFrame writes the Content-Length header and body for LSP")
    func appendLSP() {
        var output: [UInt8] = []
        Array("{\"a\":1}".utf8).withUnsafeBytes { Framing.lsp.appendFrame(body: $0, to: &output) }
        #expect(String(decoding: output, as: UTF8.self) == "Content-Length: 7\r\n\r\n{\"a\":1}")
        for length in [0, 9, 10, 99, 100, 12345] {
            var frame: [UInt8] = []
            [UInt8](repeating: 0x61, count: length).withUnsafeBytes { Framing.lsp.appendFrame(body: $0, to: &frame) }
            #expect(String(decoding: frame, as: UTF8.self) == "Content-Length: \(length)\r\n\r\n" + String(repeating: "a", count: length))
        }
    }

    @Test("Framing raw values and cases")
    func framingCases() {
        #expect(Framing.allCases == [.ndjson, .lsp])
        #expect(Framing(rawValue: "lsp") == .lsp)
        #expect(Framing(rawValue: "ndjson") == .ndjson)
    }
}
