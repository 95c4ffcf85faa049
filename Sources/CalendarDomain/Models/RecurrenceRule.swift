import Jansson

/// How an event repeats: JSCalendar's `RecurrenceRule` (RFC 8984 §4.3.3), which is RFC 5545's RRULE
/// as JSON. Expanded by ``RuleExpander`` (``RecurrenceExpansion``); libical reads and writes it as RRULE text.
///
/// The subset: frequencies `yearly`, `monthly`, `weekly`, `daily` (not `hourly` and finer: an agenda
/// has no use for an event every minute); no `rscale` or `skip` (Gregorian only); `count` at most
/// ``maximumCount``; `until` a local date-time (in the event's zone).
public struct RecurrenceRule: Sendable, Equatable, Codable {
    public enum Frequency: String, Sendable, Codable, CaseIterable {
        case yearly, monthly, weekly, daily
    }

    /// A weekday, optionally the n-th in the period (`{"day": "su", "nthOfPeriod": -1}`: the last Sunday).
    public struct NDay: Sendable, Equatable, Codable {
        public var day: Weekday
        public var nthOfPeriod: Int?

        public init(day: Weekday, nthOfPeriod: Int? = nil) {
            self.day = day
            self.nthOfPeriod = nthOfPeriod
        }

        public init(from decoder: any Decoder) throws {
            try JSCalendarType.check(decoder, is: "NDay")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            day = try container.decode(Weekday.self, forKey: .day)
            nthOfPeriod = try container.decodeIfPresent(Int.self, forKey: .nthOfPeriod)
        }
    }

    public enum Weekday: String, Sendable, Codable, CaseIterable {
        case mo, tu, we, th, fr, sa, su
    }

    public var frequency: Frequency
    public var interval: Int?
    public var firstDayOfWeek: Weekday?
    public var byDay: [NDay]?
    public var byMonthDay: [Int]?
    /// Months as strings, `"1"`…`"12"` (JSCalendar leaves room for leap months; Gregorian has none).
    public var byMonth: [String]?
    public var byYearDay: [Int]?
    public var byWeekNo: [Int]?
    public var byHour: [Int]?
    public var byMinute: [Int]?
    public var bySetPosition: [Int]?
    public var count: Int?
    public var until: LocalDateTime?

    public init(frequency: Frequency, interval: Int? = nil, firstDayOfWeek: Weekday? = nil, byDay: [NDay]? = nil,
                byMonthDay: [Int]? = nil, byMonth: [String]? = nil, byYearDay: [Int]? = nil, byWeekNo: [Int]? = nil,
                byHour: [Int]? = nil, byMinute: [Int]? = nil, bySetPosition: [Int]? = nil, count: Int? = nil,
                until: LocalDateTime? = nil) {
        self.frequency = frequency
        self.interval = interval
        self.firstDayOfWeek = firstDayOfWeek
        self.byDay = byDay
        self.byMonthDay = byMonthDay
        self.byMonth = byMonth
        self.byYearDay = byYearDay
        self.byWeekNo = byWeekNo
        self.byHour = byHour
        self.byMinute = byMinute
        self.bySetPosition = bySetPosition
        self.count = count
        self.until = until
    }

    public init(from decoder: any Decoder) throws {
        try JSCalendarType.check(decoder, is: "RecurrenceRule")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        frequency = try container.decode(Frequency.self, forKey: .frequency)
        interval = try container.decodeIfPresent(Int.self, forKey: .interval)
        firstDayOfWeek = try container.decodeIfPresent(Weekday.self, forKey: .firstDayOfWeek)
        byDay = try container.decodeIfPresent([NDay].self, forKey: .byDay)
        byMonthDay = try container.decodeIfPresent([Int].self, forKey: .byMonthDay)
        byMonth = try container.decodeIfPresent([String].self, forKey: .byMonth)
        byYearDay = try container.decodeIfPresent([Int].self, forKey: .byYearDay)
        byWeekNo = try container.decodeIfPresent([Int].self, forKey: .byWeekNo)
        byHour = try container.decodeIfPresent([Int].self, forKey: .byHour)
        byMinute = try container.decodeIfPresent([Int].self, forKey: .byMinute)
        bySetPosition = try container.decodeIfPresent([Int].self, forKey: .bySetPosition)
        count = try container.decodeIfPresent(Int.self, forKey: .count)
        until = try container.decodeIfPresent(LocalDateTime.self, forKey: .until)
    }

    /// The most occurrences a `count` may ask for.
    public static let maximumCount = 5000
    /// The longest `interval`.
    public static let maximumInterval = 1000
    /// The most members each `by*` list may have: what libical 3.0 holds of it (`ICAL_BY_*_SIZE` less
    /// its end mark; it drops the rest without a word), and no more than the list has distinct values.
    public static let maximumItems: [(member: String, maximum: Int)] = [
        ("byDay", 385), ("byMonthDay", 31), ("byMonth", 12), ("byYearDay", 385), ("byWeekNo", 55), ("byHour", 24), ("byMinute", 60),
        ("bySetPosition", 385),
    ]

    /// Checks every member's range; `field` is where the rule sits in the params (`recurrenceRules[0]`).
    public func validate(field: String) throws(JSONFieldError) {
        func check(_ values: [Int]?, _ name: String, _ range: ClosedRange<Int>, nonZero: Bool = true) throws(JSONFieldError) {
            for (index, value) in (values ?? []).enumerated() where !range.contains(value) || (nonZero && value == 0) {
                throw JSONFieldError(field: "\(field).\(name)[\(index)]",
                                     expected: "integer \(range.lowerBound)...\(range.upperBound)\(nonZero ? ", not 0" : "")",
                                     got: String(value))
            }
        }
        // Sizes first: a list of 100,000 members is refused before any of them is looked at.
        let counts = ["byDay": byDay?.count, "byMonthDay": byMonthDay?.count, "byMonth": byMonth?.count, "byYearDay": byYearDay?.count,
                      "byWeekNo": byWeekNo?.count, "byHour": byHour?.count, "byMinute": byMinute?.count, "bySetPosition": bySetPosition?.count]
        for (name, maximum) in Self.maximumItems {
            if let count = counts[name] ?? nil, count > maximum {
                throw JSONFieldError(field: "\(field).\(name)", expected: "at most \(maximum) members", got: String(count))
            }
        }
        if let interval, !(1...Self.maximumInterval).contains(interval) {
            throw JSONFieldError(field: "\(field).interval", expected: "integer 1...\(Self.maximumInterval)", got: String(interval))
        }
        if let count, !(1...Self.maximumCount).contains(count) {
            throw JSONFieldError(field: "\(field).count", expected: "integer 1...\(Self.maximumCount)", got: String(count))
        }
        if count != nil, until != nil {
            throw JSONFieldError(field: "\(field).until", expected: "no until with count (RFC 5545: one or the other)", got: until?.description ?? "")
        }
        for (index, day) in (byDay ?? []).enumerated() {
            if let nth = day.nthOfPeriod, nth == 0 || !(-53...53).contains(nth) {
                throw JSONFieldError(field: "\(field).byDay[\(index)].nthOfPeriod", expected: "integer -53...53, not 0", got: String(nth))
            }
        }
        try check(byMonthDay, "byMonthDay", -31...31)
        try check(byYearDay, "byYearDay", -366...366)
        try check(byWeekNo, "byWeekNo", -53...53)
        try check(byHour, "byHour", 0...23, nonZero: false)
        try check(byMinute, "byMinute", 0...59, nonZero: false)
        try check(bySetPosition, "bySetPosition", -366...366)
        for (index, month) in (byMonth ?? []).enumerated() where Int(month).map({ !(1...12).contains($0) }) ?? true {
            throw JSONFieldError(field: "\(field).byMonth[\(index)]", expected: "a month \"1\"...\"12\"", got: JSONFieldError.quote(month))
        }
        try checkPartsForFrequency(field: field)
        // RFC 5545: BYSETPOS "MUST only be used in conjunction with another BYxxx rule part"; BYHOUR and BYMINUTE are ones.
        if bySetPosition != nil, [byDay?.isEmpty, byMonthDay?.isEmpty, byMonth?.isEmpty, byYearDay?.isEmpty, byWeekNo?.isEmpty,
                                  byHour?.isEmpty, byMinute?.isEmpty]
            .allSatisfy({ $0 ?? true }) {
            throw JSONFieldError(field: "\(field).bySetPosition", expected: "another by* member beside it (RFC 5545)", got: "none")
        }
    }

    /// The parts RFC 5545 §3.3.10 allows only with some frequencies: a BYDAY ordinal with MONTHLY or
    /// YEARLY (and not beside BYWEEKNO), BYMONTHDAY not with WEEKLY, BYYEARDAY not with DAILY, WEEKLY or
    /// MONTHLY, BYWEEKNO with YEARLY only. libical takes the others and repeats them never or as if the
    /// part were not there, so a rule would show nothing, or more than it says, without a word.
    private func checkPartsForFrequency(field: String) throws(JSONFieldError) {
        let frequencyName = "frequency \(frequency.rawValue)"
        let hasWeekNumbers = !(byWeekNo ?? []).isEmpty
        for (index, day) in (byDay ?? []).enumerated() {
            guard let nth = day.nthOfPeriod else { continue }
            if frequency != .monthly && frequency != .yearly {
                throw JSONFieldError(field: "\(field).byDay[\(index)].nthOfPeriod",
                                     expected: "no nthOfPeriod unless the frequency is monthly or yearly (RFC 5545)",
                                     got: "\(nth) with \(frequencyName)")
            }
            if hasWeekNumbers {
                throw JSONFieldError(field: "\(field).byDay[\(index)].nthOfPeriod", expected: "no nthOfPeriod beside byWeekNo (RFC 5545)",
                                     got: String(nth))
            }
        }
        if frequency == .weekly, !(byMonthDay ?? []).isEmpty {
            throw JSONFieldError(field: "\(field).byMonthDay", expected: "no byMonthDay with a weekly frequency (RFC 5545)", got: frequencyName)
        }
        if frequency != .yearly, !(byYearDay ?? []).isEmpty {
            throw JSONFieldError(field: "\(field).byYearDay", expected: "byYearDay only with a yearly frequency (RFC 5545)", got: frequencyName)
        }
        if frequency != .yearly, hasWeekNumbers {
            throw JSONFieldError(field: "\(field).byWeekNo", expected: "byWeekNo only with a yearly frequency (RFC 5545)", got: frequencyName)
        }
    }

    /// The RFC 5545 RRULE value, `FREQ=WEEKLY;BYDAY=MO,WE`; `until` as a floating date-time.
    public var rruleText: String {
        var parts = ["FREQ=\(frequency.rawValue.uppercased())"]
        func list(_ name: String, _ values: [String]?) {
            if let values, !values.isEmpty { parts.append("\(name)=\(values.joined(separator: ","))") }
        }
        if let count { parts.append("COUNT=\(count)") }
        if let until { parts.append("UNTIL=\(ICalendarText.dateTime(until))") }
        if let interval, interval != 1 { parts.append("INTERVAL=\(interval)") }
        list("BYMINUTE", byMinute?.map(String.init))
        list("BYHOUR", byHour?.map(String.init))
        list("BYDAY", byDay?.map { ($0.nthOfPeriod.map(String.init) ?? "") + $0.day.rawValue.uppercased() })
        list("BYMONTHDAY", byMonthDay?.map(String.init))
        list("BYYEARDAY", byYearDay?.map(String.init))
        list("BYWEEKNO", byWeekNo?.map(String.init))
        list("BYMONTH", byMonth)
        list("BYSETPOS", bySetPosition?.map(String.init))
        if let firstDayOfWeek { parts.append("WKST=\(firstDayOfWeek.rawValue.uppercased())") }
        return parts.joined(separator: ";")
    }
}
