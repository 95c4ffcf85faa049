import PropertyBased
@testable import switchboard_load
import Testing

/// The driver's reading of frames: a run counts answers by it, so it must find every frame whatever
/// the chunks the pipe delivers, and refuse broken headers without trapping.
@Suite("switchboard-load: frames")
struct LoadFramingTests {
    static let bodies = [#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#, #"{"jsonrpc":"2.0","method":"x","params":{"a":"é\n"}}"#, "{}"]

    /// Frames `bodies`, appends the bytes in chunks of `size`, and reads back what is complete after each.
    static func readBack(_ framing: Framing, chunk size: Int) throws -> [String] {
        let wire = bodies.flatMap { framing.frame(Array($0.utf8)) }
        let buffer = ByteBuffer(capacity: 16)
        var found: [String] = []
        var offset = 0
        while offset < wire.count {
            let end = min(offset + size, wire.count)
            wire[offset..<end].withUnsafeBytes { buffer.append($0) }
            offset = end
            while let frame = try framing.nextFrame(in: buffer.unread) {
                found.append(String(decoding: buffer.unread[frame.body], as: UTF8.self))
                buffer.consume(frame.length)
            }
        }
        return found
    }

    @Test("every frame is found in both framings, one byte at a time or all at once", arguments: Framing.allCases)
    func chunking(framing: Framing) throws {
        for size in [1, 2, 7, 64, 10_000] {
            #expect(try Self.readBack(framing, chunk: size) == Self.bodies)
        }
    }

    @Test("Content-Length is read in any case, with spaces, beside other headers")
    func headers() throws {
        let wire = Array("content-length:  2\r\nContent-Type: x\r\n\r\n{}".utf8)
        let frame = try wire.withUnsafeBytes { try Framing.lsp.nextFrame(in: $0) }
        #expect(frame?.body == 39..<41)
        #expect(frame?.length == 41)
    }

    @Test("a header without Content-Length, or with a bad one, is a framing error")
    func badHeaders() {
        for text in ["Content-Type: x\r\n\r\n{}", "Content-Length: -1\r\n\r\n", "Content-Length: 1e3\r\n\r\n", "Content-Length:\r\n\r\n"] {
            #expect(throws: FramingError.self) { try Array(text.utf8).withUnsafeBytes { try Framing.lsp.nextFrame(in: $0) } }
        }
    }

    @Test("blank NDJSON lines are skipped as empty frames; a carriage return before the newline is not part of the body")
    func blankLines() throws {
        let wire = Array("\n  \r\n{}\r\n".utf8)
        var frames: [Range<Int>] = []
        var start = 0
        while let frame = try wire[start...].withUnsafeBytes({ try Framing.ndjson.nextFrame(in: $0) }) {
            frames.append(frame.body)
            start += frame.length
        }
        #expect(frames.map(\.count) == [0, 0, 2])
    }

    @Test("any bytes give a frame, need more, or a framing error: never a trap")
    func anyBytes() async {
        let bytes = Gen.uint8(in: 0...255).array(of: 0...80)
        await propertyCheck(count: 2_000, input: bytes) { bytes in
            for framing in Framing.allCases {
                let found = try? bytes.withUnsafeBytes { try framing.nextFrame(in: $0) }
                if let frame = found ?? nil {
                    #expect(frame.body.upperBound <= frame.length && frame.length <= bytes.count)
                }
            }
        }
    }
}
