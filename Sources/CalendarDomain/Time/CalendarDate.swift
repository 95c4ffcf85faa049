import SwitchboardCore

/// A calendar day, `2026-03-29`: a date, not an instant. It is the same day in every time zone.
///
/// Held as its day number (days since 1970-01-01, proleptic Gregorian), so days count and compare
/// as integers. Only years ``LocalDateTime/years`` are accepted.
public struct CalendarDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public var dayNumber: Int64

    public init(dayNumber: Int64) { self.dayNumber = dayNumber }

    /// The date of `year`-`month`-`day`; `nil` when there is no such day or the year is out of range.
    public init?(year: Int64, month: Int64, day: Int64) {
        guard LocalDateTime.years.contains(year), (1...12).contains(month),
              (1...Timestamp.daysIn(month: month, year: year)).contains(day) else { return nil }
        dayNumber = Timestamp.days(fromCivil: year, month, day)
    }

    /// The UTC date of the instant `milliseconds` after the epoch.
    public init(utcMilliseconds milliseconds: Int64) {
        dayNumber = LocalDateTime.floorDivide(milliseconds, 86_400_000)
    }

    /// Parses exactly `YYYY-MM-DD`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D,
              let year = Digits.read(bytes, 0, 4), let month = Digits.read(bytes, 5, 2), let day = Digits.read(bytes, 8, 2)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// (year, month, day).
    public var components: (year: Int64, month: Int64, day: Int64) {
        let (year, month, day) = Timestamp.civil(fromDays: dayNumber)
        return (year, month, day)
    }

    public var description: String {
        let (year, month, day) = components
        return "\(Digits.pad(year, 4))-\(Digits.pad(month, 2))-\(Digits.pad(day, 2))"
    }

    /// The day `days` later (earlier when negative).
    public func adding(days: Int64) -> CalendarDate { CalendarDate(dayNumber: dayNumber + days) }

    /// Midnight at the start of this day, as a local date-time.
    public var midnight: LocalDateTime { LocalDateTime(seconds: dayNumber * 86_400) }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool { lhs.dayNumber < rhs.dayNumber }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = CalendarDate(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Self.expected))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// What a date param must look like, for error messages.
    public static let expected = "a date YYYY-MM-DD (years \(LocalDateTime.years.lowerBound)...\(LocalDateTime.years.upperBound))"
}

/// Fixed-width decimal fields of dates and times.
enum Digits {
    /// The number in `bytes[start..<start+length]`, all ASCII digits, else `nil`.
    static func read(_ bytes: [UInt8], _ start: Int, _ length: Int) -> Int64? {
        guard start >= 0, length > 0, start + length <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[start..<start + length] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
