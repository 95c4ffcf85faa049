/// A wall-clock date and time with no zone, `2026-03-29T09:30:00`: JSCalendar's `LocalDateTime`.
///
/// Held as seconds since 1970-01-01T00:00:00 *on the wall clock*, as though the wall clock were UTC:
/// adding 86,400 is "the same time next day" whatever the zone does in between. A zone turns it into
/// an instant (``ZoneRules/instant(of:)``).
public struct LocalDateTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Wall-clock seconds since 1970-01-01T00:00:00.
    public var seconds: Int64

    public init(seconds: Int64) { self.seconds = seconds }

    /// The years a date or date-time may have: wide enough for any calendar, narrow enough that every
    /// sum of a date and a duration stays far inside `Int64` and inside the zone data.
    public static let years: ClosedRange<Int64> = 1900...2199

    /// What a date-time must look like, for error messages.
    public static let expected = "a local date-time YYYY-MM-DDTHH:MM:SS (years \(years.lowerBound)...\(years.upperBound), no offset)"

    /// Parses exactly `YYYY-MM-DDTHH:MM:SS` (RFC 8984 `LocalDateTime` without fractional seconds).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 19, bytes[10] == 0x54, bytes[13] == 0x3A, bytes[16] == 0x3A,
              let date = CalendarDate(String(decoding: bytes[0..<10], as: UTF8.self)),
              let hour = Digits.read(bytes, 11, 2), let minute = Digits.read(bytes, 14, 2), let second = Digits.read(bytes, 17, 2),
              hour < 24, minute < 60, second < 60
        else { return nil }
        seconds = date.dayNumber * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The date part.
    public var date: CalendarDate { CalendarDate(dayNumber: Self.floorDivide(seconds, 86_400)) }

    /// Seconds since midnight, 0..<86,400.
    public var secondOfDay: Int64 { seconds - date.dayNumber * 86_400 }

    public var description: String {
        let time = secondOfDay
        return "\(date)T\(Digits.pad(time / 3600, 2)):\(Digits.pad(time / 60 % 60, 2)):\(Digits.pad(time % 60, 2))"
    }

    public func adding(seconds delta: Int64) -> LocalDateTime { LocalDateTime(seconds: seconds + delta) }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool { lhs.seconds < rhs.seconds }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = LocalDateTime(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Self.expected))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }
}
