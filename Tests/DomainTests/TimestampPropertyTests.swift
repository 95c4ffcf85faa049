import PropertyBased
import SwitchboardCore
import Testing

/// `Timestamp.parse` and `format` on any input (issue 6, point 1).
@Suite("Timestamps, any input")
struct TimestampPropertyTests {
    @Test("fractional seconds of any length parse, cut to milliseconds (6 digits trapped before)",
          arguments: [("2026-01-01T09:00:00.1Z", 100), ("2026-01-01T09:00:00.12Z", 120), ("2026-01-01T09:00:00.123Z", 123),
                      ("2026-01-01T09:00:00.1234Z", 123), ("2026-01-01T09:00:00.123456Z", 123),
                      ("2026-01-01T09:00:00.999999999999999999999999999999Z", 999)])
    func fractions(text: String, millis: Int64) throws {
        let base = try #require(Timestamp.parse("2026-01-01T09:00:00Z"))
        #expect(Timestamp.parse(text) == base + millis)
    }

    @Test("offsets outside RFC 3339's 00:00...23:59 are refused", arguments: ["+24:00", "-99:99", "+00:60", "+1:00", "+01:0"])
    func badOffsets(offset: String) {
        #expect(Timestamp.parse("2026-01-01T09:00:00" + offset) == nil)
    }

    @Test("format takes any Int64 without trapping, Int64.min and .max included")
    func formatExtremes() {
        for value: Int64 in [.min, .min + 1, -1, 0, 1, .max - 1, .max] {
            #expect(Timestamp.format(value).hasSuffix("Z"))
        }
        #expect(Timestamp.format(-1) == "1969-12-31T23:59:59.999Z")
    }

    @Test("any text gives an instant or nil, never a trap")
    func anyText() async {
        await propertyCheck(count: 2_000, input: PropertyInputs.text(PropertyInputs.timestampPieces, count: 0...30)) { text in
            if let instant = Timestamp.parse(text) {
                #expect(Timestamp.parse(Timestamp.format(instant)) == instant, "\(text)")
            }
        }
    }

    @Test("valid texts with one byte changed, cut or added give an instant or nil")
    func mutations() async {
        await propertyCheck(count: 2_000, input: Gen.int64(in: Self.validRange), Gen.int(in: 0...40), Gen.uint8(in: 0...255)) { instant, position, byte in
            var bytes = Array(Timestamp.format(instant).utf8)
            let at = min(position, bytes.count)
            switch byte % 3 {
            case 0 where at < bytes.count: bytes[at] = byte
            case 1: bytes.insert(byte, at: at)
            default: bytes = Array(bytes.prefix(at))
            }
            _ = Timestamp.parse(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Year 0000 to year 9999, what four digits hold.
    static let validRange: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    @Test("an instant past year 9999 or before year 0000 in UTC is refused, leap second and offsets included",
          arguments: ["9999-12-31T23:59:60Z", "9999-12-31T23:00:00-01:00", "9999-12-31T23:59:59.999-00:01",
                      "0000-01-01T00:00:00+00:01", "0000-01-01T00:59:59.999+01:00"])
    func outsideFourDigitYears(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test("the first and last instants of years 0000...9999 parse; a leap second is the second after :59")
    func edgesOfFourDigitYears() {
        #expect(Timestamp.parse("0000-01-01T00:00:00Z") == Self.validRange.lowerBound)
        #expect(Timestamp.parse("9999-12-31T23:59:59.999Z") == Self.validRange.upperBound)
        #expect(Timestamp.parse("2016-12-31T23:59:60Z") == Timestamp.parse("2017-01-01T00:00:00Z"))
        #expect(Timestamp.representable == Self.validRange)
    }

    @Test("format then parse gives back every instant of years 0000...9999")
    func roundTrip() async {
        await propertyCheck(count: 5_000, input: Gen.int64(in: Self.validRange)) { instant in
            #expect(Timestamp.parse(Timestamp.format(instant)) == instant)
        }
    }

    @Test("parse agrees with a plain day-counting reference on generated RFC 3339 texts")
    func agreesWithReference() async {
        let fields = zip(zip(Gen.int(in: 0...9999), Gen.int(in: 1...12), Gen.int(in: 1...31)),
                         zip(Gen.int(in: 0...23), Gen.int(in: 0...59), Gen.int(in: 0...60)),
                         zip(Gen.int(in: 0...9), Gen.uint64(in: 0...UInt64.max), Gen.int(in: -1439...1439)))
        await propertyCheck(count: 3_000, input: fields) { date, time, rest in
            let (year, month, day) = date
            let (hour, minute, second) = time
            let (fractionDigits, fractionSeed, offset) = rest
            guard day <= Reference.daysIn(month: month, year: year) else { return }
            let fraction = String(String(fractionSeed).reversed().prefix(fractionDigits))
            var text = Reference.pad(year, 4) + "-" + Reference.pad(month, 2) + "-" + Reference.pad(day, 2) + "T"
            text += Reference.pad(hour, 2) + ":" + Reference.pad(minute, 2) + ":" + Reference.pad(second, 2)
            if !fraction.isEmpty { text += "." + fraction }
            let zone = offset == 0 && fractionSeed % 2 == 0 ? "Z" : (offset < 0 ? "-" : "+") + Reference.pad(abs(offset) / 60, 2) + ":" + Reference.pad(abs(offset) % 60, 2)
            text += zone
            let millis = Int64((fraction + "000").prefix(3)) ?? 0
            let expected = Reference.milliseconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                                  offsetMinutes: offset, millis: millis)
            // Outside years 0000...9999 in UTC (a leap second or an offset across either end) is refused.
            #expect(Timestamp.parse(text) == (Self.validRange.contains(expected) ? expected : nil), "\(text)")
        }
    }
}

/// A deliberately naive calendar: counts days year by year and month by month.
enum Reference {
    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    static func milliseconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetMinutes: Int, millis: Int64) -> Int64 {
        var days = 0
        if year >= 1970 {
            for y in 1970..<year { days += isLeap(y) ? 366 : 365 }
        } else {
            for y in year..<1970 { days -= isLeap(y) ? 366 : 365 }
        }
        for m in 1..<month { days += daysIn(month: m, year: year) }
        days += day - 1
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + millis
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
