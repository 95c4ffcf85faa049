#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Byte constants and small scanning helpers shared by `Framing` and `Framer`.
enum FramingBytes {
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// Lower-case text a stream must begin with to be detected as LSP.
    static let lspPrefix: [UInt8] = Array("content-".utf8)
    /// Lower-case header name carrying the body length.
    static let contentLengthName: [UInt8] = Array("content-length".utf8)
    /// Lower-case text the framer looks for to resynchronise after an invalid header.
    static let resyncMarker: [UInt8] = Array("content-length:".utf8)
    /// The marker as it is re-inserted into the header line once found.
    static let resyncMarkerCanonical: [UInt8] = Array("Content-Length:".utf8)

    static let contentLengthHeaderStart: [UInt8] = Array("Content-Length: ".utf8)
    static let crlfcrlf: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]

    /// ASCII lower-casing of one byte; bytes other than A-Z are returned unchanged.
    @inline(__always)
    /// A byte allowed in a header field name (RFC 9110 `tchar`).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// The offset of "content-length:" (any case) in `bytes` at or after `start`.
    static func findResyncMarker(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let marker = resyncMarker
        guard bytes.count >= marker.count, start <= bytes.count - marker.count else { return nil }
        outer: for offset in start...(bytes.count - marker.count) {
            for index in 0..<marker.count where lower(bytes[offset + index]) != marker[index] { continue outer }
            return offset
        }
        return nil
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// Space, tab, CR or LF: what may precede the first message, or an LSP header block.
    @inline(__always)
    static func isStreamWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == lf || byte == tab || byte == cr
    }

    /// Space or tab: what may surround a header value.
    @inline(__always)
    static func isSpaceOrTab(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// True if `bytes[start..<end]` is empty or only spaces, tabs and CRs (an NDJSON line to ignore).
    @inline(__always)
    static func isBlank(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte != space && byte != tab && byte != cr { return false }
            index += 1
        }
        return true
    }

    /// Index of the first `byte` in `bytes[start..<end]`, found with `memchr`.
    @inline(__always)
    static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress,
              let hit = memchr(base + start, Int32(byte), end - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// Index of the first byte at or after `start` that is not stream whitespace, or `end`.
    @inline(__always)
    static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var index = start
        while index < end && isStreamWhitespace(bytes[index]) { index += 1 }
        return index
    }

    /// Appends the decimal digits of a non-negative `value` without allocating a String.
    static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let start = output.count
        output.append(contentsOf: repeatElement(0x30, count: digits))
        var remaining = value
        var index = start + digits - 1
        while index >= start {
            output[index] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
            index -= 1
        }
    }

    /// `bytes` as a quoted string for an error message, shortened if long.
    static func quoted(_ bytes: UnsafeRawBufferPointer) -> String {
        let shown = 60
        if bytes.count <= shown {
            return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        }
        return "\"" + String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<shown]), as: UTF8.self) + "…\""
    }
}
