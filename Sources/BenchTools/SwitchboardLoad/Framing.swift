import Glibc

/// The two framings a stdio JSON-RPC server speaks: one message per line, or LSP's `Content-Length` headers.
enum Framing: String, CaseIterable, Sendable {
    case ndjson
    case lsp

    /// `body` framed for the wire.
    func frame(_ body: [UInt8]) -> [UInt8] {
        switch self {
        case .ndjson: body + [UInt8(ascii: "\n")]
        case .lsp: Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }
    }

    /// Where the next complete message body lies in `bytes` and how many bytes its frame takes;
    /// `nil` while it is incomplete. Blank lines between NDJSON messages are skipped (`body` empty).
    func nextFrame(in bytes: UnsafeRawBufferPointer) throws(FramingError) -> (body: Range<Int>, length: Int)? {
        guard !bytes.isEmpty else { return nil }
        switch self {
        case .ndjson:
            guard let base = bytes.baseAddress, let newline = memchr(base, 0x0A, bytes.count) else { return nil }
            let end = base.distance(to: UnsafeRawPointer(newline))
            var body = 0..<end
            while let last = body.last, bytes[last] == UInt8(ascii: "\r") { body = body.lowerBound..<last }
            let blank = bytes[body].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            return (blank ? 0..<0 : body, end + 1)
        case .lsp:
            guard let headerEnd = Self.endOfHeaders(bytes) else {
                if bytes.count > 65_536 { throw FramingError(reason: "no end of headers in 64 KB") }
                return nil
            }
            let length = try Self.contentLength(UnsafeRawBufferPointer(rebasing: bytes[0..<headerEnd]))
            let bodyStart = headerEnd + 4
            guard bytes.count >= bodyStart + length else { return nil }
            return (bodyStart..<(bodyStart + length), bodyStart + length)
        }
    }

    /// Where the first `\r\n\r\n` starts.
    private static func endOfHeaders(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The value of the `Content-Length` header (any case) among `headers`, read from the bytes.
    private static func contentLength(_ headers: UnsafeRawBufferPointer) throws(FramingError) -> Int {
        let name = Array("content-length:".utf8)
        var lineStart = 0
        while lineStart < headers.count {
            var lineEnd = lineStart
            while lineEnd < headers.count, headers[lineEnd] != 0x0D { lineEnd += 1 }
            if lineEnd - lineStart > name.count,
               name.indices.allSatisfy({ headers[lineStart + $0] | 0x20 == name[$0] | 0x20 }) {
                var length = 0
                var digits = 0
                for byte in headers[(lineStart + name.count)..<lineEnd] where byte != 0x20 && byte != 0x09 {
                    guard byte >= 0x30, byte <= 0x39, digits < 12 else { throw FramingError(reason: "a bad Content-Length") }
                    length = length * 10 + Int(byte - 0x30)
                    digits += 1
                }
                guard digits > 0 else { throw FramingError(reason: "an empty Content-Length") }
                return length
            }
            lineStart = lineEnd + 2
        }
        throw FramingError(reason: "a frame without Content-Length")
    }
}

/// The server wrote something that is not a frame of the framing in use.
struct FramingError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
