import FuzzSupport
import JSONRPC

/// The framer in both framings (and detecting one): byte 0 picks the framing, byte 1 seeds the chunk
/// sizes, the rest is the stream.
///
/// Properties: it never traps; fed in chunks it finds exactly what it finds in one piece; every
/// message is within the limit (NDJSON: no newline, not blank); an oversized report is over the
/// limit; it never holds more than one message (or header block) of bytes, plus the bounded ends of
/// an oversized one (the same ends however it is chunked); and the messages found, framed again, are
/// found again unchanged.
enum FramerFuzz: FuzzTarget {
    static let name = "framer"
    static let summary = "JSONRPC Framer: NDJSON, LSP Content-Length and detection, any chunking"
    static let maxLength = 4096
    /// Small, so that oversized messages are common.
    static let limit = 64

    static func run(_ input: [UInt8]) {
        guard input.count >= 2 else { return }
        let framing: Framing? = [Framing.ndjson, .lsp, nil][Int(input[0] % 3)]
        let stream = Array(input[2...])
        let (whole, detected) = events(of: [stream[...]], framing: framing)
        let (chunked, _) = events(of: Array(Chunking(stream, seed: input[1])), framing: framing)
        require(whole == chunked, "chunking changed the events: \(whole) vs \(chunked)")
        for event in whole { checkLimits(event, framing: detected) }
        checkReframing(whole, framing: detected)
    }

    /// What the framer reported, as values, and the framing it used.
    static func events(of chunks: [ArraySlice<UInt8>], framing: Framing?) -> ([FramedEvent], Framing?) {
        var framer = Framer(framing: framing, maxMessageBytes: limit)
        var found: [FramedEvent] = []
        for chunk in chunks {
            chunk.withUnsafeBytes { bytes in framer.consume(bytes) { found.append(FramedEvent($0)) } }
            require(framer.bufferedByteCount <= max(limit + 1, Framer.maxHeaderBlockBytes),
                    "the framer holds \(framer.bufferedByteCount) bytes")
            require(framer.skippedEndsByteCount <= MessageEnds.headCapacity + 2 * MessageEnds.tailCapacity + 2,
                    "the framer holds \(framer.skippedEndsByteCount) bytes of a skipped body")
        }
        framer.finish { found.append(FramedEvent($0)) }
        require(!framer.isMidMessage, "mid-message after finish")
        return (found, framer.framing)
    }

    static func checkLimits(_ event: FramedEvent, framing: Framing?) {
        switch event {
        case .message(let body):
            require(body.count <= limit, "a message of \(body.count) bytes passed the limit")
            if framing == .ndjson {
                require(!body.contains(0x0A), "an NDJSON message holds a newline")
                require(body.contains { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }, "a blank NDJSON line was delivered")
            }
        case .oversized(let count, let reportedLimit, let head, let tail, let isWhole):
            require(count > limit && reportedLimit == limit, "oversized \(count) with limit \(reportedLimit)")
            require(head.count <= MessageEnds.headCapacity && tail.count <= MessageEnds.tailCapacity
                    && head.count + tail.count <= count && isWhole == (head.count + tail.count == count),
                    "oversized \(count) with ends of \(head.count) + \(tail.count) bytes, whole: \(isWhole)")
        case .truncated(let expected, let received):
            require(received < expected && expected <= limit, "truncated \(received)/\(expected)")
        case .invalidHeader(let reason):
            require(framing == .lsp, "an invalid header in NDJSON: \(reason)")
            require(reason.count < 160, "a header error quoted too much: \(reason.count) characters")
        }
    }

    /// The messages framed again (as `Framing.appendFrame` writes them) come out unchanged.
    static func checkReframing(_ found: [FramedEvent], framing: Framing?) {
        let messages = found.compactMap { if case .message(let body) = $0 { body } else { nil } }
        guard let framing, let first = messages.first else { return }
        // NDJSON cannot carry a body ending in CR (it reads as part of the line end), and a stream's
        // leading whitespace is skipped: such bodies are not written by the host (compact JSON).
        if framing == .ndjson, messages.contains(where: { $0.last == 0x0D }) || [0x20, 0x09, 0x0D].contains(first[0]) { return }
        var output: [UInt8] = []
        for body in messages { body.withUnsafeBytes { framing.appendFrame(body: $0, to: &output) } }
        let (again, _) = events(of: [output[...]], framing: framing)
        require(again == messages.map(FramedEvent.message), "reframed messages differ: \(again) vs \(messages)")
    }
}

/// A ``FramerEvent`` with its bytes copied, so events can be kept and compared.
enum FramedEvent: Equatable, CustomStringConvertible {
    case message([UInt8])
    case oversized(Int, Int, head: [UInt8], tail: [UInt8], isWhole: Bool)
    case invalidHeader(String)
    case truncated(Int, Int)

    init(_ event: FramerEvent) {
        switch event {
        case .message(let body): self = .message(Array(body))
        case .oversized(let count, let limit, let ends):
            self = .oversized(count, limit, head: Array(ends.head), tail: Array(ends.tail), isWhole: ends.isWhole)
        case .invalidHeader(let reason): self = .invalidHeader(reason)
        case .truncated(let expected, let received): self = .truncated(expected, received)
        }
    }

    var description: String {
        switch self {
        case .message(let body): "message(\(String(decoding: body, as: UTF8.self).debugDescription))"
        case .oversized(let count, let limit, let head, let tail, _): "oversized(\(count), \(limit), ends \(head.count) + \(tail.count))"
        case .invalidHeader(let reason): "invalidHeader(\(reason))"
        case .truncated(let expected, let received): "truncated(\(expected), \(received))"
        }
    }
}
