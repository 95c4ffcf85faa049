/// Writes bytes at a pointer that moves on: the agenda's text (``AgendaText``) goes into one buffer
/// sized beforehand, with no capacity check per byte.
///
/// - Important: The caller sizes the buffer for everything written (``AgendaText`` adds up a bound
///   per entry); the cursor itself checks nothing.
struct ByteCursor {
    private var next: UnsafeMutablePointer<UInt8>
    /// The last date written as `YYYY-MM-DD` (years 0...9999), packed in the low 80 bits: the entries
    /// of a day mostly share their dates, so the civil date is worked out once per day, not per field.
    private var lastDay = Int64.min
    private var lastDate: (UInt64, UInt16) = (0, 0)

    init(_ start: UnsafeMutablePointer<UInt8>) { next = start }

    /// Bytes written since `start`.
    func count(from start: UnsafeMutablePointer<UInt8>) -> Int { next - start }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        next.initialize(to: value)
        next += 1
    }

    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        next.update(from: text.utf8Start, count: count)
        next += count
    }

    mutating func bytes(_ values: [UInt8]) {
        values.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            next.update(from: base, count: buffer.count)
            next += buffer.count
        }
    }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// A JSON string: at most 6 bytes per byte of `value`, and 2 for the quotes.
    mutating func string(_ value: String) {
        byte(0x22)
        // A native string's bytes are read where they are; only another kind is copied first.
        if value.utf8.withContiguousStorageIfAvailable({ escaped($0) }) == nil {
            var copied = value
            copied.withUTF8 { escaped($0) }
        }
        byte(0x22)
    }

    /// `utf8` with the characters JSON requires escaped.
    private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for index in utf8.indices where utf8[index] < 0x20 || utf8[index] == 0x22 || utf8[index] == 0x5C {
            copy(UnsafeBufferPointer(rebasing: utf8[start..<index]))
            escape(utf8[index])
            start = index + 1
        }
        copy(UnsafeBufferPointer(rebasing: utf8[start...]))
    }

    private mutating func copy(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        next.update(from: base, count: buffer.count)
        next += buffer.count
    }

    private mutating func escape(_ value: UInt8) {
        JSONEscape.write(value) { byte($0) }
    }

    /// A decimal integer: at most 20 bytes.
    mutating func integer(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude / divisor % 10))
            divisor /= 10
        }
    }

    /// `"YYYY-MM-DD"`: 12 bytes for years 0...9999.
    mutating func date(_ date: CalendarDate) {
        byte(0x22)
        dateDigits(date)
        byte(0x22)
    }

    /// `"YYYY-MM-DDTHH:MM:SS"`, the text of ``LocalDateTime``.
    mutating func localDateTime(_ local: LocalDateTime) {
        byte(0x22)
        let day = LocalDateTime.floorDivide(local.seconds, 86_400)
        dateDigits(CalendarDate(dayNumber: day))
        timeDigits(local.seconds - day * 86_400)
        byte(0x22)
    }

    /// `"YYYY-MM-DDTHH:MM:SSZ"`: an instant (whole seconds since the epoch) in UTC, as `Timestamp.format` writes it.
    mutating func instant(_ seconds: Int64) {
        byte(0x22)
        let day = LocalDateTime.floorDivide(seconds, 86_400)
        dateDigits(CalendarDate(dayNumber: day))
        timeDigits(seconds - day * 86_400)
        byte(UInt8(ascii: "Z"))
        byte(0x22)
    }

    private mutating func dateDigits(_ date: CalendarDate) {
        if date.dayNumber == lastDay {
            let raw = UnsafeMutableRawPointer(next)
            raw.storeBytes(of: lastDate.0, as: UInt64.self)
            raw.storeBytes(of: lastDate.1, toByteOffset: 8, as: UInt16.self)
            next += 10
            return
        }
        let start = next
        let (year, month, day) = date.components
        defer {
            if year >= 0, year < 10_000 {
                lastDay = date.dayNumber
                lastDate = (UnsafeRawPointer(start).loadUnaligned(as: UInt64.self), UnsafeRawPointer(start + 8).loadUnaligned(as: UInt16.self))
            }
        }
        if year >= 0, year < 10_000 {
            pair(UInt64(year / 100))
            pair(UInt64(year % 100))
        } else {
            // Outside four digits (never in an agenda): zero-padded to four, signed below zero.
            if year < 0 { byte(UInt8(ascii: "-")) }
            let magnitude = year.magnitude
            if magnitude < 1000 { raw(magnitude < 10 ? "000" : magnitude < 100 ? "00" : "0") }
            integer(Int64(magnitude))
        }
        byte(UInt8(ascii: "-"))
        pair(UInt64(month))
        byte(UInt8(ascii: "-"))
        pair(UInt64(day))
    }

    private mutating func timeDigits(_ secondOfDay: Int64) {
        byte(UInt8(ascii: "T"))
        pair(UInt64(secondOfDay / 3600))
        byte(UInt8(ascii: ":"))
        pair(UInt64(secondOfDay / 60 % 60))
        byte(UInt8(ascii: ":"))
        pair(UInt64(secondOfDay % 60))
    }

    /// Two digits of `value` (0...99).
    @inline(__always)
    private mutating func pair(_ value: UInt64) {
        byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
        byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }
}
