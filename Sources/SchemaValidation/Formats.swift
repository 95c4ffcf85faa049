/// The `format` values the schemas use, checked strictly (JSON Schema leaves formats optional; here a
/// wrong date in an answer is a defect like any other).
enum Formats {
    /// Whether `text` is a valid `format`; nil when the format is unknown to this validator.
    static func check(_ format: String, _ text: String) -> Bool? {
        switch format {
        case "date-time": dateTime(text)
        case "email": email(text)
        case "uri": uri(text)
        default: nil
        }
    }

    /// RFC 3339 `date-time`: `2026-01-01T09:00:00Z`, optional fraction, `Z` or `±hh:mm`, fields in range.
    static func dateTime(_ text: String) -> Bool {
        guard let match = try? #/^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/#
            .wholeMatch(in: text) else { return false }
        guard let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
              let hour = Int(match.4), let minute = Int(match.5), let second = Int(match.6) else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...days[month - 1]).contains(day),
              hour < 24, minute < 60, second < 61 else { return false }
        if let offsetHours = match.9, let offsetMinutes = match.10 {
            guard let h = Int(offsetHours), let m = Int(offsetMinutes), h < 24, m < 60 else { return false }
        }
        return true
    }

    /// An address as the schemas describe it: `local@domain.tld`, letters, digits and `._%+-` before the
    /// `@`, two or more domain labels, the last of two letters or more.
    static func email(_ text: String) -> Bool {
        (try? #/^[A-Za-z0-9._%+\-]+@([A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/#.wholeMatch(in: text)) != nil
    }

    /// An absolute URI: a scheme, a colon, and no spaces or control characters.
    static func uri(_ text: String) -> Bool {
        (try? #/^[A-Za-z][A-Za-z0-9+.\-]*:[^\s\x00-\x1F]*$/#.wholeMatch(in: text)) != nil
    }
}
