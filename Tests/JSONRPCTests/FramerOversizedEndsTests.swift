import Testing
@testable import JSONRPC

/// A body of `count` bytes whose every 4 KiB window differs, so that a wrong head or tail shows.
private func patternedBody(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 23) }
}

@Suite("Framer: the ends of an oversized body")
struct FramerOversizedEndsTests {
    @Test("an NDJSON line over the limit is reported with its first 4 KiB and last 4 KiB, however it is chunked",
          arguments: [1_500, 4_096, 8_192, 8_193, 20_000])
    func ndjsonEnds(length: Int) {
        let body = patternedBody(length)
        for lineEnd in ["\n", "\r\n", ""] {
            let input = Array("{}\n".utf8) + body + Array(lineEnd.utf8) + Array((lineEnd.isEmpty ? "" : "[]\n").utf8)
            let expected: [FramerTestEvent] = [.message("{}"), .oversized(length, limit: 1000)] + (lineEnd.isEmpty ? [] : [.message("[]")])
            let chunkings: [FramerChunking] = [.whole, .fixed(1), .fixed(1000), .fixed(4097)] + (1...16).map { .random(seed: UInt64($0)) }
            expectFramerEvents(input, framing: .ndjson, maxMessageBytes: 1000, chunkings: chunkings, expected)
            let run = framerRun(input, framing: .ndjson, maxMessageBytes: 1000, chunking: .random(seed: 99))
            #expect(run.ends == [FramerTestEnds(body: body)], "line end \(lineEnd.debugDescription)")
            #expect(run.ends.first?.isWhole == (length <= 8_192))
        }
    }

    @Test("an LSP body over the limit is reported once skipped, with its ends, and the next message is read")
    func lspEnds() {
        for length in [1_500, 8_192, 8_193, 50_000] {
            let body = patternedBody(length)
            let input = Array("Content-Length: \(length)\r\n\r\n".utf8) + body + Array(framerLSPFrame("[]").utf8)
            let chunkings: [FramerChunking] = [.whole, .fixed(1), .fixed(1000)] + (1...16).map { .random(seed: UInt64($0)) }
            expectFramerEvents(input, framing: .lsp, maxMessageBytes: 1000, chunkings: chunkings, [.oversized(length, limit: 1000), .message("[]")])
            let run = framerRun(input, framing: .lsp, maxMessageBytes: 1000, chunking: .fixed(777))
            #expect(run.ends == [FramerTestEnds(body: body)])
            #expect(run.maxBuffered < 100)
            #expect(run.maxSkipped <= framerSkippedBound)
        }
        // Not before its last byte has come.
        var framer = Framer(framing: .lsp, maxMessageBytes: 10)
        var events: [FramerTestEvent] = []
        Array("Content-Length: 20\r\n\r\n0123456789012345678".utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        #expect(events.isEmpty)
        Array("9".utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        #expect(events == [.oversized(20, limit: 10)])
    }

    @Test("an LSP body cut short (end of input, or abandoned) is reported with the bytes that came as its head and no tail")
    func lspCutShort() {
        let body = patternedBody(6_000)
        let input = Array("Content-Length: 9000\r\n\r\n".utf8) + body
        let run = framerRun(input, framing: .lsp, maxMessageBytes: 1000, chunking: .fixed(500))
        #expect(run.events == [.oversized(9_000, limit: 1000)])
        #expect(run.ends == [FramerTestEnds(head: body.prefix(MessageEnds.headCapacity), tail: [UInt8](), isWhole: false)])

        var framer = Framer(framing: .lsp, maxMessageBytes: 10)
        var ends: [FramerTestEnds] = []
        Array("Content-Length: 20\r\n\r\n{\"id\":1".utf8).withUnsafeBytes { framer.consume($0) { _ in } }
        framer.abandonPartialMessage { if case .oversized(20, 10, let found) = $0 { ends.append(FramerTestEnds(found)) } }
        #expect(ends == [FramerTestEnds(head: Array("{\"id\":1".utf8), tail: [UInt8](), isWhole: false)])
        #expect(!framer.isMidMessage)
        #expect(framer.skippedEndsByteCount == 0)
    }

    @Test("a 2 MiB line fed a byte at a time keeps no more than its bounded ends")
    func boundedWhileSkipping() {
        let body = patternedBody(2 << 20)
        var framer = Framer(framing: .ndjson, maxMessageBytes: 1000)
        var most = 0
        var ends: [FramerTestEnds] = []
        body.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let size = min(1 + offset % 7, bytes.count - offset)
                framer.consume(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])) { _ in }
                most = max(most, framer.skippedEndsByteCount + framer.bufferedByteCount)
                offset += size
            }
        }
        Array("\n".utf8).withUnsafeBytes { framer.consume($0) { if case .oversized(_, _, let found) = $0 { ends.append(FramerTestEnds(found)) } } }
        #expect(most <= framerSkippedBound + 1001)
        #expect(ends == [FramerTestEnds(body: body)])
        #expect(framer.skippedEndsByteCount == 0)
    }
}
