import Testing
@testable import JSONRPC

// MARK: - Harness shared by the Framer*Tests files

/// A `FramerEvent` copied out of its callback, so tests can compare sequences.
enum FramerTestEvent: Equatable, CustomStringConvertible {
    case message(String)
    case oversized(Int, limit: Int)
    case invalidHeader(String)
    case truncated(expected: Int, received: Int)

    init(_ event: FramerEvent) {
        switch event {
        case .message(let body): self = .message(String(decoding: body, as: UTF8.self))
        case .oversized(let count, let limit, _): self = .oversized(count, limit: limit)
        case .invalidHeader(let reason): self = .invalidHeader(reason)
        case .truncated(let expected, let received, _): self = .truncated(expected: expected, received: received)
        }
    }

    var description: String {
        switch self {
        case .message(let body): return "message(\(body.debugDescription))"
        case .oversized(let count, let limit): return "oversized(\(count), limit: \(limit))"
        case .invalidHeader(let reason): return "invalidHeader(\(reason.debugDescription))"
        case .truncated(let expected, let received): return "truncated(expected: \(expected), received: \(received))"
        }
    }
}

/// SplitMix64: a small deterministic generator, so random chunkings are reproducible.
struct FramerTestRNG: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How an input is cut into chunks for `consume`.
enum FramerChunking: CustomStringConvertible {
    case whole
    case bytewise
    case fixed(Int)
    /// Random sizes (empty chunks included), from a fixed seed.
    case random(seed: UInt64)

    func sizes(for total: Int) -> [Int] {
        switch self {
        case .whole:
            return [total]
        case .bytewise:
            return Array(repeating: 1, count: total)
        case .fixed(let size):
            return stride(from: 0, to: total, by: size).map { min(size, total - $0) }
        case .random(let seed):
            var rng = FramerTestRNG(seed: seed)
            var sizes: [Int] = []
            var left = total
            while left > 0 {
                // Mostly small pieces, sometimes large ones, sometimes empty.
                let cap: Int
                switch rng.next() % 4 {
                case 0: cap = 0
                case 1, 2: cap = 16
                default: cap = max(1, total / 2)
                }
                let size = min(left, Int(rng.next() % UInt64(cap + 1)))
                sizes.append(size)
                left -= size
            }
            return sizes
        }
    }

    var description: String {
        switch self {
        case .whole: return "whole"
        case .bytewise: return "bytewise"
        case .fixed(let size): return "fixed(\(size))"
        case .random(let seed): return "random(seed: \(seed))"
        }
    }

    /// Whole, one byte at a time, and 64 random splits.
    static let all: [FramerChunking] = [.whole, .bytewise] + (1...64).map { .random(seed: UInt64($0)) }
}

/// The ends of an oversized body (``MessageEnds``), copied out of the callback.
struct FramerTestEnds: Equatable {
    var head: [UInt8]
    var tail: [UInt8]
    var isWhole: Bool

    init(_ ends: MessageEnds) {
        head = Array(ends.head)
        tail = Array(ends.tail)
        isWhole = ends.isWhole
    }

    init(head: some Sequence<UInt8>, tail: some Sequence<UInt8>, isWhole: Bool) {
        self.head = Array(head)
        self.tail = Array(tail)
        self.isWhole = isWhole
    }

    /// The ends of a complete body: its first 4 KiB, and its last 4 KiB after them.
    init(body: [UInt8]) {
        let head = body.prefix(MessageEnds.headCapacity)
        self.init(head: head, tail: body.dropFirst(head.count).suffix(MessageEnds.tailCapacity),
                  isWhole: body.count <= MessageEnds.headCapacity + MessageEnds.tailCapacity)
    }
}

/// The outcome of feeding an input to a fresh framer.
struct FramerRun {
    var events: [FramerTestEvent] = []
    /// The ends of each `.oversized` event, in order.
    var ends: [FramerTestEnds] = []
    var framing: Framing?
    /// The largest `bufferedByteCount` seen after any chunk.
    var maxBuffered = 0
    /// The largest `skippedEndsByteCount` seen after any chunk.
    var maxSkipped = 0
}

/// The most `skippedEndsByteCount` may be, whatever the body.
let framerSkippedBound = MessageEnds.headCapacity + 2 * MessageEnds.tailCapacity + 2

/// Feeds `input` to a new framer cut as `chunking` says (each chunk a separate allocation), then finishes.
func framerRun(
    _ input: [UInt8], framing: Framing? = nil, maxMessageBytes: Int = 1 << 20,
    chunking: FramerChunking = .whole, finish: Bool = true
) -> FramerRun {
    var framer = Framer(framing: framing, maxMessageBytes: maxMessageBytes)
    var run = FramerRun()
    var offset = 0
    for size in chunking.sizes(for: input.count) {
        let chunk = Array(input[offset..<(offset + size)])
        offset += size
        chunk.withUnsafeBytes { bytes in
            framer.consume(bytes) { run.record($0) }
        }
        run.maxBuffered = max(run.maxBuffered, framer.bufferedByteCount)
        run.maxSkipped = max(run.maxSkipped, framer.skippedEndsByteCount)
    }
    if finish {
        framer.finish { run.record($0) }
    }
    run.framing = framer.framing
    return run
}

func framerRun(
    _ input: String, framing: Framing? = nil, maxMessageBytes: Int = 1 << 20,
    chunking: FramerChunking = .whole, finish: Bool = true
) -> FramerRun {
    framerRun(Array(input.utf8), framing: framing, maxMessageBytes: maxMessageBytes, chunking: chunking, finish: finish)
}

extension FramerRun {
    mutating func record(_ event: FramerEvent) {
        events.append(FramerTestEvent(event))
        if case .oversized(_, _, let messageEnds) = event { ends.append(FramerTestEnds(messageEnds)) }
    }
}

/// Checks that every chunking of `input` gives exactly `expected` (and the expected framing), with
/// the same ends of oversized bodies, and that the framer never buffers more than a message's limit
/// or a header block (plus the bounded ends of a body it skips).
func expectFramerEvents(
    _ input: [UInt8], framing: Framing? = nil, maxMessageBytes: Int = 1 << 20,
    detected: Framing? = nil, chunkings: [FramerChunking] = FramerChunking.all,
    _ expected: [FramerTestEvent], sourceLocation: SourceLocation = #_sourceLocation
) {
    let bufferBound = max(maxMessageBytes + 1, Framer.maxHeaderBlockBytes)
    var firstEnds: [FramerTestEnds]?
    for chunking in chunkings {
        let run = framerRun(input, framing: framing, maxMessageBytes: maxMessageBytes, chunking: chunking)
        #expect(run.events == expected, "chunking \(chunking)", sourceLocation: sourceLocation)
        #expect(run.ends == (firstEnds ?? run.ends), "ends of oversized bodies, chunking \(chunking)", sourceLocation: sourceLocation)
        firstEnds = firstEnds ?? run.ends
        #expect(run.maxSkipped <= framerSkippedBound, "chunking \(chunking)", sourceLocation: sourceLocation)
        if let detected {
            #expect(run.framing == detected, "chunking \(chunking)", sourceLocation: sourceLocation)
        }
        #expect(run.maxBuffered <= bufferBound, "chunking \(chunking)", sourceLocation: sourceLocation)
        if run.events != expected { return }  // one failing chunking is enough to read
    }
}

func expectFramerEvents(
    _ input: String, framing: Framing? = nil, maxMessageBytes: Int = 1 << 20,
    detected: Framing? = nil, chunkings: [FramerChunking] = FramerChunking.all,
    _ expected: [FramerTestEvent], sourceLocation: SourceLocation = #_sourceLocation
) {
    expectFramerEvents(
        Array(input.utf8), framing: framing, maxMessageBytes: maxMessageBytes, detected: detected,
        chunkings: chunkings, expected, sourceLocation: sourceLocation)
}

/// An LSP frame for `body`, written by hand (not by `appendFrame`, which is tested separately).
func framerLSPFrame(_ body: String) -> String {
    "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

// MARK: - Chunking

@Suite("Framer chunking")
struct FramerChunkingTests {
    @Test("whole, byte-at-a-time and random splits give the same events for a mixed NDJSON stream")
    func ndjsonChunkingsAgree() {
        let input = "\n  {\"a\":1}\r\n\n{\"b\":[1,2]}\n \t\r\n" + String(repeating: "x", count: 40) + "\n{\"c\":\"\\r\"}\r\n{\"tail\":true}"
        let expected: [FramerTestEvent] = [
            .message("{\"a\":1}"), .message("{\"b\":[1,2]}"), .oversized(40, limit: 32),
            .message("{\"c\":\"\\r\"}"), .message("{\"tail\":true}"),
        ]
        expectFramerEvents(input, maxMessageBytes: 32, detected: .ndjson, expected)
        expectFramerEvents(input, framing: .ndjson, maxMessageBytes: 32, detected: .ndjson, expected)
    }

    @Test("whole, byte-at-a-time and random splits give the same events for a mixed LSP stream")
    func lspChunkingsAgree() {
        let input = "\r\n" + framerLSPFrame("{\"a\":1}")
            + "content-length: 41\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
            + String(repeating: "y", count: 41)
            + "Content-Length: 12x\r\n\r\n{\"lost\":1}"
            + framerLSPFrame("{\"s\":\"\\r\\n\\r\\nContent-Length: 3\"}")
            + "Content-Length: 10\n\n{\"b\":2}"
        let expected: [FramerTestEvent] = [
            .message("{\"a\":1}"), .oversized(41, limit: 40),
            .invalidHeader("Content-Length \"12x\" is not a number"),
            .message("{\"s\":\"\\r\\n\\r\\nContent-Length: 3\"}"), .truncated(expected: 10, received: 7),
        ]
        expectFramerEvents(input, maxMessageBytes: 40, detected: .lsp, expected)
        expectFramerEvents(input, framing: .lsp, maxMessageBytes: 40, detected: .lsp, expected)
    }

    @Test("random messages framed by appendFrame come back intact under random splits")
    func randomRoundTrip() {
        for framing in Framing.allCases {
            for seed in UInt64(1)...40 {
                var rng = FramerTestRNG(seed: seed &* 7919)
                var bodies: [String] = []
                var stream: [UInt8] = []
                for _ in 0..<(Int(rng.next() % 30) + 1) {
                    let length = Int(rng.next() % 20)
                    // NDJSON bodies cannot hold a newline (nor end in CR); LSP bodies may hold anything, headers included.
                    let pieces: [String] = framing == .lsp
                        ? ["{", "}", "\"", "a", "\r", "\n", " ", ":", "C", "\r\n\r\n", "Content-Length: 9\r\n\r\n"]
                        : ["{", "}", "\"", "a", " ", ":", "C", "\\", "é", "Content-Length: 9"]
                    var body = (0..<length).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
                    body = "{" + body  // never blank, never leading whitespace
                    bodies.append(body)
                    Array(body.utf8).withUnsafeBytes { framing.appendFrame(body: $0, to: &stream) }
                }
                let expected = bodies.map { FramerTestEvent.message($0) }
                let chunkings: [FramerChunking] = [.whole, .bytewise, .fixed(7)] + (0..<8).map { .random(seed: seed * 100 + $0) }
                expectFramerEvents(stream, detected: framing, chunkings: chunkings, expected)
            }
        }
    }

    @Test("a message wholly inside a chunk is handed out as a view into that chunk, not a copy")
    func zeroCopy() {
        for (framing, input) in [(Framing.ndjson, "{\"a\":1}\n{\"b\":2}\r\n"), (.lsp, framerLSPFrame("{\"a\":1}") + framerLSPFrame("{\"b\":2}"))] {
            var framer = Framer(framing: nil, maxMessageBytes: 1024)
            var views = 0
            Array(input.utf8).withUnsafeBytes { chunk in
                let range = UInt(bitPattern: chunk.baseAddress!)..<UInt(bitPattern: chunk.baseAddress! + chunk.count)
                framer.consume(chunk) { event in
                    guard case .message(let body) = event else { Issue.record("unexpected \(event)"); return }
                    #expect(range.contains(UInt(bitPattern: body.baseAddress!)), "\(framing)")
                    views += 1
                }
            }
            #expect(views == 2, "\(framing)")
            #expect(framer.bufferedByteCount == 0, "\(framing)")
        }
    }

    @Test("only the tail spanning chunks is buffered, and the buffer is emptied once the message is out")
    func onlyTailBuffered() {
        var framer = Framer(framing: .ndjson, maxMessageBytes: 1024)
        var events: [FramerTestEvent] = []
        Array("{\"a\":1}\n{\"b\"".utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        #expect(framer.bufferedByteCount == 4)
        #expect(framer.isMidMessage)
        Array(":2}\n".utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        #expect(framer.bufferedByteCount == 0)
        #expect(!framer.isMidMessage)
        #expect(events == [.message("{\"a\":1}"), .message("{\"b\":2}")])
    }

    @Test("an empty chunk changes nothing")
    func emptyChunk() {
        var framer = Framer(framing: nil, maxMessageBytes: 64)
        var events: [FramerTestEvent] = []
        [UInt8]().withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        framer.consume(UnsafeRawBufferPointer(start: nil, count: 0)) { events.append(FramerTestEvent($0)) }
        framer.finish { events.append(FramerTestEvent($0)) }
        #expect(events.isEmpty)
        #expect(framer.framing == nil)
    }

    @Test("if the callback throws, the rest of the chunk is dropped and the framer stays usable")
    func throwingCallback() {
        struct Stop: Error {}
        var framer = Framer(framing: .ndjson, maxMessageBytes: 64)
        var events: [FramerTestEvent] = []
        #expect(throws: Stop.self) {
            try Array("{\"a\":1}\n{\"b\":2}\n".utf8).withUnsafeBytes { chunk in
                try framer.consume(chunk) { event in
                    events.append(FramerTestEvent(event))
                    throw Stop()
                }
            }
        }
        Array("{\"c\":3}\n".utf8).withUnsafeBytes { framer.consume($0) { events.append(FramerTestEvent($0)) } }
        #expect(events == [.message("{\"a\":1}"), .message("{\"c\":3}")])
        #expect(framer.bufferedByteCount == 0)
    }
}
