import SwitchboardCore

/// One recurrence rule taken apart for expansion, period by period, as RFC 5545 §3.3.10 defines it:
/// each period (a year, month, week or day, every `interval` of them from the start's) holds the days
/// that pass every `by*` part present (each part is one filter: a year day, a week number, a month
/// day counted from either end, a weekday or an n-th weekday of the year or month), at every listed
/// hour and minute (the start's when none are listed); `bySetPosition` then picks from that set. Parts
/// a rule leaves out are taken from its start as the RFC says (the start's month and day for a
/// yearly rule with no day part, its day for a monthly one, its weekday for a weekly one).
///
/// Written by hand because libical 3.0.16 (Debian's) expanded several shapes wrongly and silently:
/// week numbers (`byWeekNo` weeks across the new year, a Tuesday among Mondays), `byYearDay` beside
/// `byMonth`, a negative `byMonthDay` with `daily`, and `bySetPosition` with `weekly` or over listed
/// hours. ``RecurrenceExpansion/iterate(_:from:notBefore:through:maximumSteps:_:)`` drives it.
struct RuleExpander {
    let frequency: RecurrenceRule.Frequency
    let interval: Int64
    /// The first day of a week, 0 (Monday) ... 6 (Sunday).
    let weekStart: Int64
    /// `months[m]` for m in 1...12; `nil` when any month passes.
    let months: [Bool]?
    let monthDays: [Int64]?
    let yearDays: [Int64]?
    let weekNumbers: [Int64]?
    /// `weekdays[d]` for d in 0 (Monday) ... 6; `nil` when `byDay` has no plain weekday.
    let weekdays: [Bool]?
    /// `byDay` members with an `nthOfPeriod` (position, weekday 0...6).
    let nthWeekdays: [(position: Int64, weekday: Int64)]
    /// Seconds after midnight of each occurrence on a day that passes, in order.
    let times: [Int64]
    let setPositions: [Int64]?
    /// The start's day number, and its period's index (days, weeks, months or years since 1970).
    let startDay: Int64
    let startPeriodUnit: Int64

    init(_ rule: RecurrenceRule, start: LocalDateTime) {
        func present<T>(_ list: [T]?) -> [T]? { (list ?? []).isEmpty ? nil : list }
        let date = start.date
        let (year, month, day) = date.components
        frequency = rule.frequency
        interval = Int64(max(rule.interval ?? 1, 1))
        weekStart = Self.weekdayIndex(rule.firstDayOfWeek ?? .mo)
        var byMonth = present(rule.byMonth)?.compactMap { Int64($0) }
        var byMonthDay = present(rule.byMonthDay)?.map(Int64.init)
        var plain = present(rule.byDay)?.filter { $0.nthOfPeriod == nil || rule.frequency == .weekly || rule.frequency == .daily }
            .map { Self.weekdayIndex($0.day) }
        // n-th weekdays mean something for monthly and yearly rules only (validation refuses the others).
        let nth = rule.frequency == .weekly || rule.frequency == .daily ? [] : (rule.byDay ?? []).compactMap { day in
            day.nthOfPeriod.map { (position: Int64($0), weekday: Self.weekdayIndex(day.day)) }
        }
        if present(rule.byWeekNo) == nil, present(rule.byYearDay) == nil, byMonthDay == nil, present(rule.byDay) == nil {
            switch rule.frequency {
            case .yearly:
                byMonth = byMonth ?? [month]
                byMonthDay = [day]
            case .monthly: byMonthDay = [day]
            case .weekly: plain = [Self.weekday(of: date.dayNumber)]
            case .daily: break
            }
        }
        months = byMonth.map { list in (0...12).map { list.contains(Int64($0)) } }
        monthDays = byMonthDay
        yearDays = present(rule.byYearDay)?.map(Int64.init)
        weekNumbers = present(rule.byWeekNo)?.map(Int64.init)
        weekdays = plain.flatMap { list in list.isEmpty ? nil : (0..<7).map { list.contains(Int64($0)) } }
        nthWeekdays = nth
        let second = start.secondOfDay % 60
        let hours = Set(present(rule.byHour)?.map(Int64.init) ?? [start.secondOfDay / 3600])
        let minutes = Set(present(rule.byMinute)?.map(Int64.init) ?? [start.secondOfDay / 60 % 60])
        times = hours.flatMap { hour in minutes.map { hour * 3600 + $0 * 60 + second } }.sorted()
        setPositions = present(rule.bySetPosition)?.map(Int64.init)
        startDay = date.dayNumber
        switch rule.frequency {
        case .yearly: startPeriodUnit = year
        case .monthly: startPeriodUnit = year * 12 + month - 1
        case .weekly: startPeriodUnit = Self.weekBegin(of: date.dayNumber, weekStart: weekStart)
        case .daily: startPeriodUnit = date.dayNumber
        }
    }

    /// The days of period `index` (0 is the start's), as ranges of day numbers in order: a year is
    /// given as its listed months alone when `byMonth` lists some.
    func days(ofPeriod index: Int64) -> [ClosedRange<Int64>] {
        let step = index * interval
        switch frequency {
        case .yearly:
            let year = startPeriodUnit + step
            guard let months else { return [Timestamp.days(fromCivil: year, 1, 1)...Timestamp.days(fromCivil: year, 12, 31)] }
            return (1...12).filter { months[Int($0)] }.map { Self.monthRange(year: year, month: $0) }
        case .monthly:
            let unit = startPeriodUnit + step
            let year = LocalDateTime.floorDivide(unit, 12), month = unit - year * 12 + 1
            return [Self.monthRange(year: year, month: month)]
        case .weekly:
            let first = startPeriodUnit + step * 7
            return [first...first + 6]
        case .daily:
            return [startPeriodUnit + step...startPeriodUnit + step]
        }
    }

    /// The index of the first period that can hold a day on or after `day` (0 when `day` is before the start's).
    func firstPeriod(reaching day: Int64) -> Int64 {
        let units: Int64
        switch frequency {
        case .yearly: units = CalendarDate(dayNumber: day).components.year - startPeriodUnit
        case .monthly:
            let (year, month, _) = CalendarDate(dayNumber: day).components
            units = year * 12 + month - 1 - startPeriodUnit
        case .weekly: units = LocalDateTime.floorDivide(day - startPeriodUnit, 7)
        case .daily: units = day - startPeriodUnit
        }
        return max(0, LocalDateTime.floorDivide(units, interval))
    }

    /// True when `day` passes every day part of the rule.
    func passes(_ day: Int64) -> Bool {
        let (year, month, dayOfMonth) = Timestamp.civil(fromDays: day)
        if let months, !months[Int(month)] { return false }
        if let monthDays {
            let length = Timestamp.daysIn(month: month, year: year)
            guard monthDays.contains(where: { $0 > 0 ? $0 == dayOfMonth : length + $0 + 1 == dayOfMonth }) else { return false }
        }
        if let yearDays {
            let first = Timestamp.days(fromCivil: year, 1, 1)
            let ordinal = day - first + 1, length = Timestamp.days(fromCivil: year + 1, 1, 1) - first
            guard yearDays.contains(where: { $0 > 0 ? $0 == ordinal : length + $0 + 1 == ordinal }) else { return false }
        }
        if let weekNumbers {
            let (number, weeks) = weekNumber(of: day)
            guard weekNumbers.contains(where: { $0 > 0 ? $0 == number : weeks + $0 + 1 == number }) else { return false }
        }
        if weekdays != nil || !nthWeekdays.isEmpty {
            let weekday = Self.weekday(of: day)
            if weekdays?[Int(weekday)] == true { return true }
            guard !nthWeekdays.isEmpty else { return false }
            // An n-th weekday counts in the year for a yearly rule without byMonth, else in the month (RFC 5545).
            let range = frequency == .yearly && months == nil
                ? Timestamp.days(fromCivil: year, 1, 1)...Timestamp.days(fromCivil: year, 12, 31)
                : Self.monthRange(year: year, month: month)
            return nthWeekdays.contains { nth in
                nth.weekday == weekday && (nth.position > 0 ? (day - range.lowerBound) / 7 + 1 == nth.position
                                                            : (range.upperBound - day) / 7 + 1 == -nth.position)
            }
        }
        return true
    }

    /// The occurrences `bySetPosition` picks from a period's `days` (those that pass, in order), in order.
    func picked(from days: [Int64]) -> [LocalDateTime] {
        let size = Int64(days.count * times.count)
        var indices = Set<Int64>()
        for position in setPositions ?? [] {
            let index = position > 0 ? position - 1 : size + position
            if index >= 0, index < size { indices.insert(index) }
        }
        let perDay = Int64(times.count)
        return indices.sorted().map { index in
            LocalDateTime(seconds: days[Int(index / perDay)] * 86_400 + times[Int(index % perDay)])
        }
    }

    /// The week number of `day` (RFC 5545: week 1 is the first with four days or more in the year,
    /// weeks beginning on ``weekStart``) and how many weeks its week's year has.
    func weekNumber(of day: Int64) -> (number: Int64, weeks: Int64) {
        let begin = Self.weekBegin(of: day, weekStart: weekStart)
        // A week belongs to the year that holds its fourth day.
        let year = CalendarDate(dayNumber: begin + 3).components.year
        let first = firstWeekBegin(year), next = firstWeekBegin(year + 1)
        return ((begin - first) / 7 + 1, (next - first) / 7)
    }

    /// The first day of week 1 of `year`: the week that holds January 4th.
    private func firstWeekBegin(_ year: Int64) -> Int64 {
        Self.weekBegin(of: Timestamp.days(fromCivil: year, 1, 4), weekStart: weekStart)
    }

    static func weekBegin(of day: Int64, weekStart: Int64) -> Int64 {
        day - (weekday(of: day) - weekStart + 7) % 7
    }

    /// 0 (Monday) ... 6 (Sunday); 1970-01-01 was a Thursday.
    static func weekday(of day: Int64) -> Int64 {
        let remainder = (day + 3) % 7
        return remainder < 0 ? remainder + 7 : remainder
    }

    static func weekdayIndex(_ day: RecurrenceRule.Weekday) -> Int64 {
        Int64(RecurrenceRule.Weekday.allCases.firstIndex(of: day) ?? 0)
    }

    private static func monthRange(year: Int64, month: Int64) -> ClosedRange<Int64> {
        let first = Timestamp.days(fromCivil: year, month, 1)
        return first...first + Timestamp.daysIn(month: month, year: year) - 1
    }
}
