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
    /// Lower-case header name carrying the body length. A `StaticString`: reading it touches no
    /// reference count, which an array constant would on every header line.
    static let contentLengthName: StaticString = "content-length"
    /// Lower-case text the framer looks for to resynchronise after an invalid header.
    static let resyncMarker: [UInt8] = Array("content-length:".utf8)
    /// The marker as it is re-inserted into the header line once found.
    static let resyncMarkerCanonical: [UInt8] = Array("Content-Length:".utf8)

    /// The start of an outgoing LSP header, up to the length's digits.
    static let contentLengthHeaderStart: StaticString = "Content-Length: "

    /// True if `name` is "Content-Length" in any case.
    @inline(__always)
    static func isContentLengthName(_ name: UnsafeRawBufferPointer) -> Bool {
        let expected = contentLengthName
        guard name.count == expected.utf8CodeUnitCount else { return false }
        for index in 0..<name.count where lower(name[index]) != expected.utf8Start[index] { return false }
        return true
    }

    /// The most bytes a frame adds to its body: an LSP header with a 20-digit length (NDJSON adds 1).
    static let maximumHeaderCount = 40

    /// Makes room for `count` more bytes in `output` at once, growing it at least twofold: a frame of
    /// megabytes is not copied again by the appends that build it (an array grown to fit a body
    /// exactly would be reallocated for the newline after it).
    static func reserve(_ count: Int, in output: inout [UInt8]) {
        guard output.capacity - output.count < count else { return }
        output.reserveCapacity(Swift.max(output.count + count, output.capacity * 2))
    }

    /// Appends the header of an outgoing LSP frame, `Content-Length: N\r\n\r\n`, for a body of
    /// `length` bytes (not negative): composed on the stack and appended in one piece.
    static func appendLSPHeader(length: Int, to output: inout [UInt8]) {
        let start = contentLengthHeaderStart
        let prefixCount = start.utf8CodeUnitCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefixCount + 24) { header in
            var count = 0
            for index in 0..<prefixCount {
                header[count] = start.utf8Start[index]
                count += 1
            }
            var digits = 1
            var rest = length / 10
            while rest > 0 { digits += 1; rest /= 10 }
            var remaining = length
            var index = count + digits - 1
            while index >= count {
                header[index] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
                remaining /= 10
                index -= 1
            }
            count += digits
            header[count] = cr
            header[count + 1] = lf
            header[count + 2] = cr
            header[count + 3] = lf
            count += 4
            output.append(contentsOf: UnsafeBufferPointer(rebasing: header[0..<count]))
        }
    }

    /// A byte allowed in a header field name (RFC 9110 `tchar`).
    @inline(__always)
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

    /// ASCII lower-casing of one byte; bytes other than A-Z are returned unchanged.
    @inline(__always)
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

    /// `bytes` as a quoted string for an error message, shortened if long.
    static func quoted(_ bytes: UnsafeRawBufferPointer) -> String {
        let shown = 60
        if bytes.count <= shown {
            return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        }
        return "\"" + String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<shown]), as: UTF8.self) + "…\""
    }
}
