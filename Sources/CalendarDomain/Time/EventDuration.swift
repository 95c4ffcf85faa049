/// How long an event lasts: JSCalendar's `Duration`, the ISO 8601 subset RFC 8984 allows —
/// `PnW`, or `PnD`, `PTnHnMnS`, `PnDTnHnMnS` (each part optional, at least one present).
///
/// Weeks and days are *nominal*: a day is "the same wall time next day", 23 or 25 hours across a
/// DST change, as RFC 5545 and RFC 8984 have it. Hours, minutes and seconds are exact.
public struct EventDuration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Nominal days (weeks count 7).
    public var days: Int64
    /// Exact seconds after the days.
    public var seconds: Int64

    public init(days: Int64 = 0, seconds: Int64 = 0) {
        self.days = days
        self.seconds = seconds
    }

    public static let zero = EventDuration()

    /// The longest duration accepted: ten years of days, counted over all its units (`PT87841H` and
    /// `P3660DT1S` are longer).
    public static let maximumDays: Int64 = 3660

    /// What a duration must look like, for error messages.
    public static let expected = "a duration such as PT1H30M, P1D or P2W (not negative, at most P\(maximumDays)D in all)"

    /// True when it is not negative and at most ``maximumDays`` long in all (a day counted as 24 hours).
    public var isWithinMaximum: Bool {
        days >= 0 && seconds >= 0 && days <= Self.maximumDays && seconds <= (Self.maximumDays - days) * 86_400
    }

    /// Why a text is not a duration.
    public enum Problem: Error, Sendable, Equatable {
        case negative, malformed, tooLong
    }

    /// Parses `text`; see ``Problem`` for what fails.
    public static func parse(_ text: String) -> Result<EventDuration, Problem> {
        var bytes = Array(text.utf8)[...]
        if bytes.first == 0x2D { return .failure(.negative) }
        if bytes.first == 0x2B { bytes = bytes.dropFirst() }
        guard bytes.first == 0x50, bytes.count > 1 else { return .failure(.malformed) }
        bytes = bytes.dropFirst()
        var days: Int64 = 0, seconds: Int64 = 0
        var inTime = false, sawPart = false, sawTimePart = false
        var lastUnit = 0  // the units must come in order: W/D, then T, then H, M, S
        while let first = bytes.first {
            if first == 0x54 {  // T
                guard !inTime else { return .failure(.malformed) }
                inTime = true
                bytes = bytes.dropFirst()
                continue
            }
            var number: Int64 = 0, digits = 0
            while let byte = bytes.first, byte >= 0x30, byte <= 0x39 {
                guard digits < 9 else { return .failure(.tooLong) }
                number = number * 10 + Int64(byte - 0x30)
                digits += 1
                bytes = bytes.dropFirst()
            }
            guard digits > 0, let unit = bytes.first else { return .failure(.malformed) }
            bytes = bytes.dropFirst()
            let order: Int
            switch (inTime, unit) {
            case (false, 0x57): order = 1; days += number * 7  // W
            case (false, 0x44): order = 2; days += number  // D
            case (true, 0x48): order = 3; seconds += number * 3600  // H
            case (true, 0x4D): order = 4; seconds += number * 60  // M
            case (true, 0x53): order = 5; seconds += number  // S
            default: return .failure(.malformed)
            }
            guard order > lastUnit, !(lastUnit == 1) else { return .failure(.malformed) }  // weeks stand alone
            lastUnit = order
            sawPart = true
            if inTime { sawTimePart = true }
        }
        guard sawPart, !inTime || sawTimePart else { return .failure(.malformed) }
        let duration = EventDuration(days: days, seconds: seconds)
        guard duration.isWithinMaximum else { return .failure(.tooLong) }
        return .success(duration)
    }

    /// True when it is whole days and nothing else (what an all-day event needs).
    public var isWholeDays: Bool { seconds == 0 }

    /// The canonical text: `P2D`, `PT1H30M`, `P1DT2H`, `PT0S`.
    public var description: String {
        guard days != 0 || seconds != 0 else { return "PT0S" }
        var text = "P"
        if days != 0 { text += "\(days)D" }
        if seconds != 0 {
            text += "T"
            if seconds / 3600 != 0 { text += "\(seconds / 3600)H" }
            if seconds / 60 % 60 != 0 { text += "\(seconds / 60 % 60)M" }
            if seconds % 60 != 0 { text += "\(seconds % 60)S" }
        }
        return text
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch Self.parse(text) {
        case .success(let duration): self = duration
        case .failure(let problem):
            let expected = problem == .negative ? "a duration that is not negative (\(Self.expected))" : Self.expected
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: expected))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
