import FuzzSupport
import SwitchboardCore

/// RFC 3339 timestamps as clients send them, and any instant formatted.
///
/// Properties: parsing and formatting never trap; a parsed instant formats to text that parses back
/// to it (when its year is 0000...9999, the range `format` writes in four digits); formatting is
/// canonical (format ∘ parse ∘ format = format); any 8 bytes as milliseconds format without trapping,
/// and read back when in range.
enum TimestampFuzz: FuzzTarget {
    static let name = "timestamp"
    static let summary = "Timestamp.parse of client text, Timestamp.format round trips"
    static let maxLength = 64

    /// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z in milliseconds.
    static let firstInstant: Int64 = -62_167_219_200_000
    static let pastLastInstant: Int64 = 253_402_300_800_000

    static func run(_ input: [UInt8]) {
        if let instant = Timestamp.parse(String(decoding: input, as: UTF8.self)) {
            checkRoundTrip(instant)
        }
        if input.count >= 8 {
            let instant = input.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            checkRoundTrip(instant)
        }
    }

    static func checkRoundTrip(_ instant: Int64) {
        let text = Timestamp.format(instant)
        let inRange = instant >= firstInstant && instant < pastLastInstant
        let back = Timestamp.parse(text)
        require(inRange ? back == instant : back == nil, "\(instant) formats as \(text), read back as \(String(describing: back))")
        if inRange, let back { require(Timestamp.format(back) == text, "\(text) is not canonical") }
    }
}
