/// Reading an RRULE value (as libical writes it) into a JSCalendar rule.
extension RecurrenceRule {
    /// Why an RRULE cannot be taken.
    struct RRULEProblem: Error, Equatable {
        var reason: String
    }

    /// The rule of `text` (`FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20270101T000000Z`); `untilInstant` turns a
    /// UTC `UNTIL` (an instant) into the event's wall time.
    init(rrule text: String, untilInstant: (Int64) -> LocalDateTime) throws(RRULEProblem) {
        var fields: [String: String] = [:]
        for part in text.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw RRULEProblem(reason: "RRULE part \(part) is not NAME=VALUE") }
            fields[String(pair[0]).uppercased()] = String(pair[1])
        }
        guard let frequency = fields["FREQ"].flatMap({ Frequency(rawValue: $0.lowercased()) }) else {
            throw RRULEProblem(reason: "RRULE frequency \(fields["FREQ"] ?? "none") is not yearly, monthly, weekly or daily")
        }
        func numbers(_ name: String) throws(RRULEProblem) -> [Int]? {
            guard let value = fields[name] else { return nil }
            var result: [Int] = []
            for item in value.split(separator: ",") {
                guard let number = Int(item) else { throw RRULEProblem(reason: "RRULE \(name) value \(item) is not a number") }
                result.append(number)
            }
            return result
        }
        self.init(frequency: frequency)
        interval = try numbers("INTERVAL")?.first
        count = try numbers("COUNT")?.first
        byMonthDay = try numbers("BYMONTHDAY")
        byMonth = try numbers("BYMONTH")?.map(String.init)
        byYearDay = try numbers("BYYEARDAY")
        byWeekNo = try numbers("BYWEEKNO")
        byHour = try numbers("BYHOUR")
        byMinute = try numbers("BYMINUTE")
        bySetPosition = try numbers("BYSETPOS")
        if let start = fields["WKST"] {
            guard let day = Weekday(rawValue: start.lowercased()) else { throw RRULEProblem(reason: "RRULE WKST \(start) is not a weekday") }
            firstDayOfWeek = day
        }
        if let days = fields["BYDAY"] {
            byDay = try days.split(separator: ",").map { item throws(RRULEProblem) in
                let name = item.suffix(2), position = item.dropLast(2)
                guard let day = Weekday(rawValue: name.lowercased()), position.isEmpty || Int(position) != nil else {
                    throw RRULEProblem(reason: "RRULE BYDAY value \(item) is not a weekday")
                }
                return NDay(day: day, nthOfPeriod: position.isEmpty ? nil : Int(position))
            }
        }
        if let until = fields["UNTIL"] {
            guard let local = ICalendarText.local(basic: until) else { throw RRULEProblem(reason: "RRULE UNTIL \(until) is not a date-time") }
            self.until = until.hasSuffix("Z") ? untilInstant(local.seconds) : local
        }
        if fields["BYSECOND"] != nil || fields["RSCALE"] != nil || fields["SKIP"] != nil {
            throw RRULEProblem(reason: "RRULE parts BYSECOND, RSCALE and SKIP are not supported")
        }
    }
}
