import CLibical

/// Conversions between switchboard's dates and libical's `icaltimetype` and iCalendar text.
enum ICalendarText {
    /// The property that carries an event's locations after the first (the first is LOCATION).
    static let extraLocation = "X-SWITCHBOARD-LOCATION"

    /// The address of a participant without an email, as Google writes it.
    static let noMail = "invalid:nomail"

    /// `20260329T093000`: a floating DATE-TIME.
    static func dateTime(_ local: LocalDateTime) -> String {
        let (year, month, day) = local.date.components
        let time = local.secondOfDay
        return Digits.pad(year, 4) + Digits.pad(month, 2) + Digits.pad(day, 2) + "T"
            + Digits.pad(time / 3600, 2) + Digits.pad(time / 60 % 60, 2) + Digits.pad(time % 60, 2)
    }

    /// A floating `icaltimetype` (no zone) holding `local`.
    static func icalTime(_ local: LocalDateTime, isDate: Bool = false) -> icaltimetype {
        var time = icaltime_null_time()
        let (year, month, day) = local.date.components
        let seconds = local.secondOfDay
        time.year = Int32(year)
        time.month = Int32(month)
        time.day = Int32(day)
        time.hour = Int32(seconds / 3600)
        time.minute = Int32(seconds / 60 % 60)
        time.second = Int32(seconds % 60)
        time.is_date = isDate ? 1 : 0
        return time
    }

    /// The wall time `time` holds (its zone, if any, ignored); `nil` outside the accepted years.
    static func local(_ time: icaltimetype) -> LocalDateTime? {
        guard let date = CalendarDate(year: Int64(time.year), month: Int64(time.month), day: Int64(time.day)) else { return nil }
        guard time.is_date == 0 else { return date.midnight }
        guard (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second) else { return nil }
        return date.midnight.adding(seconds: Int64(time.hour) * 3600 + Int64(time.minute) * 60 + Int64(min(time.second, 59)))
    }
}

extension ICalendarText {
    /// `20260329`, `20260329T093000` or `20260329T093000Z` (the zone mark ignored) as a wall time.
    static func local(basic text: String) -> LocalDateTime? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 8, let year = Digits.read(bytes, 0, 4), let month = Digits.read(bytes, 4, 2), let day = Digits.read(bytes, 6, 2),
              let date = CalendarDate(year: year, month: month, day: day) else { return nil }
        if bytes.count == 8 { return date.midnight }
        guard bytes.count == 15 || (bytes.count == 16 && bytes[15] == 0x5A), bytes[8] == 0x54,
              let hour = Digits.read(bytes, 9, 2), let minute = Digits.read(bytes, 11, 2), let second = Digits.read(bytes, 13, 2),
              hour < 24, minute < 60, second < 60 else { return nil }
        return date.midnight.adding(seconds: hour * 3600 + minute * 60 + second)
    }

    /// `map`'s values in key order, shorter keys first (`p2` before `p10`): the order in which import
    /// numbers locations and participants, so the keys it gives come back the same from an export.
    static func inKeyOrder<Value>(_ map: [String: Value]) -> [Value] {
        map.sorted { ($0.key.utf8.count, $0.key) < ($1.key.utf8.count, $1.key) }.map(\.value)
    }

    /// The text of a buffer libical allocated for the caller, which is freed.
    static func taking(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { icalmemory_free_buffer(pointer) }
        return String(cString: pointer)
    }
}
