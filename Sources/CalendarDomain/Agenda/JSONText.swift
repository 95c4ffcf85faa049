/// Appends JSON text to a byte buffer: what ``AgendaText`` writes the agenda with.
///
/// Strings are escaped as RFC 8259 requires (`"`, `\`, and control characters); everything else in
/// them is copied as UTF-8. Dates and times are written digit by digit, with no `String` in between.
struct JSONText {
    var bytes: [UInt8]

    init(reservingCapacity capacity: Int = 0, startingWith start: [UInt8] = []) {
        bytes = start
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func raw(_ text: [UInt8]) { bytes.append(contentsOf: text) }

    mutating func string(_ value: String) {
        bytes.append(0x22)
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(0x22)
    }

    private mutating func escape(_ byte: UInt8) {
        JSONEscape.write(byte) { bytes.append($0) }
    }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(value.magnitude, width: 1)
    }

    /// `"name":` (a name that needs no escaping).
    mutating func key(_ name: StaticString) {
        bytes.append(0x22)
        raw(name)
        raw("\":")
    }

    /// `,"name":`.
    mutating func nextKey(_ name: StaticString) {
        bytes.append(UInt8(ascii: ","))
        key(name)
    }

    /// `"YYYY-MM-DD"`.
    mutating func date(_ date: CalendarDate) {
        bytes.append(0x22)
        dateDigits(date)
        bytes.append(0x22)
    }

    /// `"YYYY-MM-DDTHH:MM:SS"`, the text of ``LocalDateTime``.
    mutating func localDateTime(_ local: LocalDateTime) {
        bytes.append(0x22)
        dateDigits(local.date)
        timeDigits(local.secondOfDay)
        bytes.append(0x22)
    }

    /// `"YYYY-MM-DDTHH:MM:SSZ"`: an instant (whole seconds since the epoch) in UTC, as `Timestamp.format` writes it.
    mutating func instant(_ seconds: Int64) {
        let local = LocalDateTime(seconds: seconds)
        bytes.append(0x22)
        dateDigits(local.date)
        timeDigits(local.secondOfDay)
        raw("Z\"")
    }

    private mutating func dateDigits(_ date: CalendarDate) {
        let (year, month, day) = date.components
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        digits(year.magnitude, width: 4)
        bytes.append(UInt8(ascii: "-"))
        digits(UInt64(month), width: 2)
        bytes.append(UInt8(ascii: "-"))
        digits(UInt64(day), width: 2)
    }

    private mutating func timeDigits(_ secondOfDay: Int64) {
        bytes.append(UInt8(ascii: "T"))
        digits(UInt64(secondOfDay / 3600), width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(UInt64(secondOfDay / 60 % 60), width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(UInt64(secondOfDay % 60), width: 2)
    }

    /// The decimal digits of `value`, zero-padded to `width`.
    private mutating func digits(_ value: UInt64, width: Int) {
        var value = value
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var count = 0
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                value /= 10
                count += 1
            } while value > 0 || count < width
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }
}

/// How a byte a JSON string may not hold raw (`"`, `\`, a control character) is written: `\n` and the
/// other short escapes, else `\u00XX`. Shared by ``JSONText`` and ``ByteCursor``.
enum JSONEscape {
    static func write(_ byte: UInt8, _ emit: (UInt8) -> Void) {
        emit(0x5C)
        switch byte {
        case 0x22, 0x5C: emit(byte)
        case 0x0A: emit(UInt8(ascii: "n"))
        case 0x0D: emit(UInt8(ascii: "r"))
        case 0x09: emit(UInt8(ascii: "t"))
        case 0x08: emit(UInt8(ascii: "b"))
        case 0x0C: emit(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            for character in [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                              hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0x0F)]] { emit(character) }
        }
    }
}
