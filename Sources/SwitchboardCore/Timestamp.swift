/// RFC 3339 timestamps in UTC (`2026-01-01T09:00:00Z`, milliseconds when not zero), to and from
/// milliseconds since the epoch, without Foundation.
public enum Timestamp {
    /// Formats `milliseconds` as `YYYY-MM-DDTHH:MM:SS[.mmm]Z`; any `Int64` formats (years outside
    /// 0000...9999 come out with more digits or a sign, which ``parse(_:)`` does not read back).
    public static func format(_ milliseconds: Int64) -> String {
        let seconds = floorDivide(milliseconds, 1000)
        let millis = floorModulo(milliseconds, 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = floorModulo(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if millis != 0 { text += ".\(pad(millis, 3))" }
        return text + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `nil` when it is not such a timestamp.
    ///
    /// Any number of fractional digits is read; digits past milliseconds are dropped (truncated).
    /// The offset's hour is 00...23 and its minute 00...59, as RFC 3339 has them. With four-digit
    /// years every intermediate value stays far inside `Int64`, so no input can overflow.
    /// A leap second (`:60`) is the second after `:59`. An instant outside ``representable`` (years
    /// 0000...9999 in UTC, which `9999-12-31T23:59:60Z` or `0000-01-01T00:00:00+01:00` would leave)
    /// is `nil`: ``format(_:)`` could not write it back as RFC 3339.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ length: Int) -> Int64? {
            guard start + length <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + length] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 45, let month = number(5, 2), bytes[7] == 45,
              let day = number(8, 2), bytes[10] == 84 || bytes[10] == 116,
              let hour = number(11, 2), bytes[13] == 58, let minute = number(14, 2), bytes[16] == 58,
              let second = number(17, 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 3 { millis = millis * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            while digits < 3 {
                millis *= 10
                digits += 1
            }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch bytes[index] {
        case 90, 122: index += 1
        case 43, 45:
            guard let offsetHour = number(index + 1, 2), bytes.count > index + 3, bytes[index + 3] == 58,
                  let offsetMinute = number(index + 4, 2), offsetHour < 24, offsetMinute < 60 else { return nil }
            offsetMinutes = (offsetHour * 60 + offsetMinute) * (bytes[index] == 45 ? -1 : 1)
            index += 6
        default: return nil
        }
        guard index == bytes.count else { return nil }
        let days = days(fromCivil: year, month, day)
        let instant = ((days * 86_400 + hour * 3600 + minute * 60 + second) - offsetMinutes * 60) * 1000 + millis
        return representable.contains(instant) ? instant : nil
    }

    /// The instants RFC 3339 can write, in milliseconds: `0000-01-01T00:00:00Z` to `9999-12-31T23:59:59.999Z`.
    public static let representable: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    // Howard Hinnant's civil-from-days algorithms (public: the calendar's dates use them too).
    /// The proleptic Gregorian (year, month, day) of a day number (days since 1970-01-01).
    public static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The day number (days since 1970-01-01) of a proleptic Gregorian date.
    public static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// How many days `month` (1...12) of `year` has.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `a / b` rounded down, for a positive `b`; never overflows (`Int64.min` included).
    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return a % b < 0 ? quotient - 1 : quotient
    }

    /// `a` modulo a positive `b`, in `0..<b`.
    private static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        let remainder = a % b
        return remainder < 0 ? remainder + b : remainder
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
