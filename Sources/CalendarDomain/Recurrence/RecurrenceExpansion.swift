import CLibical

/// The occurrences of a recurrence rule, by libical's RRULE iterator (RFC 5545 §3.3.10).
///
/// libical iterates *wall times* from a floating start: 09:30 stays 09:30 on every date whatever the
/// zone does between them, and a zone turns each into an instant afterwards (``ZoneRules``). That is
/// how a weekly meeting keeps its local time across DST.
///
/// - Important: Work is bounded by the window, not by the rule's age: iteration starts near the window
///   (``iterate(_:from:notBefore:through:maximumSteps:_:)``), and a window yields at most `limit`
///   occurrences; when it would yield more, the caller is told where it stopped (``Expansion``).
///   Loops stop when their task is cancelled.
enum RecurrenceExpansion {
    /// Occurrences a window yields per rule and request, at most.
    static let maximumSteps = 100_000

    /// The budget the expansions of the running request share, if it set one (``ExpansionBudget``).
    @TaskLocal static var requestBudget: ExpansionBudget?

    /// How an expansion of a window ended.
    enum Expansion: Equatable {
        /// Every occurrence in the window was visited (or `visit` asked to stop).
        case complete
        /// The bound (or a cancellation) stopped it: every occurrence up to `after` was visited, later ones were not.
        case cut(after: LocalDateTime)
    }

    /// Calls `visit` with the start of each occurrence of `rule` (first occurrence `start`) that lies
    /// in `window`, in order, at most `limit` of them; `visit` returns false to stop. Served from
    /// ``OccurrenceCache`` when the window's occurrences are few enough to keep.
    @discardableResult
    static func starts(of rule: RecurrenceRule, from start: LocalDateTime, in window: ClosedRange<LocalDateTime>,
                       limit: Int = maximumSteps, cache: OccurrenceCache = .shared, _ visit: (LocalDateTime) -> Bool) -> Expansion {
        if let cached = cache.starts(of: rule, from: start, in: window) {
            for (visited, index) in cached.indices.enumerated() {
                guard visited < limit else { return .cut(after: visited == 0 ? window.lowerBound.adding(seconds: -1) : cached[index - 1]) }
                if !visit(cached[index]) { return .complete }
            }
            return .complete
        }
        // Too many occurrences to keep: iterate the window alone.
        var last = window.lowerBound.adding(seconds: -1)
        let outcome = iterate(rule, from: start, notBefore: window.lowerBound, through: window.upperBound, maximumSteps: limit) { local in
            last = local
            return visit(local)
        }
        return outcome == .stopped ? .cut(after: last) : .complete
    }

    /// How ``iterate(_:from:notBefore:through:maximumSteps:_:)`` ended.
    enum Iteration: Equatable {
        /// The rule has no occurrence after the last one visited (`visit` never said stop).
        case ended
        /// `through` was passed, or `visit` said stop.
        case reached
        /// `maximumSteps` or a cancellation stopped it first.
        case stopped
    }

    /// Calls `visit` with the starts of `rule` (first occurrence `start`) from `lower` through `end`, in order.
    ///
    /// Starts near `lower`: a rule without `count` by libical's `icalrecur_iterator_set_start`; a
    /// `count` rule with no `by*` part by arithmetic (its k-th start is `start` plus k periods, so it
    /// is the same rule from there with k fewer); any other `count` rule from `start`, which its `count`
    /// (at most ``RecurrenceRule/maximumCount``) bounds. At most `maximumSteps` occurrences at or after
    /// `lower`, and ``RecurrenceRule/maximumCount`` before it, are looked at.
    ///
    /// - Important: libical looks at every candidate the `by*` parts make (one per day and listed
    ///   hour and minute) until one passes the rule's filters, within one call: a rule whose filters
    ///   never pass (February 30th, every minute) kept a call busy to the year 2582, past any
    ///   cancellation. So libical is given the window's end as `UNTIL`, in slices of about
    ///   ``candidatesPerSlice`` candidates with a check for cancellation between them, and the `count`
    ///   is counted here (slices start by `set_start`). When ``candidateBudget`` candidates are looked
    ///   at, or the request's ``requestBudget`` is spent, the iteration stops (`.stopped`), as the step
    ///   bound stops it.
    static func iterate(_ rule: RecurrenceRule, from start: LocalDateTime, notBefore lower: LocalDateTime, through end: LocalDateTime,
                        maximumSteps: Int, _ visit: (LocalDateTime) -> Bool) -> Iteration {
        var rule = rule, first = start, skip: LocalDateTime?
        if let until = rule.until, lower > until { return .ended }
        if lower > start {
            if rule.count == nil {
                skip = lower
            } else if let period = rule.fixedPeriodSeconds, let count = rule.count {
                let periods = (lower.seconds - start.seconds + period - 1) / period
                guard periods < count else { return .ended }
                rule.count = count - Int(periods)
                first = start.adding(seconds: periods * period)
            }
        }
        let last = min(end, rule.until ?? end)
        guard last >= (skip ?? first) else { return rule.until.map { $0 < end } ?? false ? .ended : .reached }
        LibicalSetup.once()
        var recurrence = icalrecurrencetype_from_string(rule.rruleText)
        guard recurrence.freq != ICAL_NO_RECURRENCE else { return .ended }
        recurrence.count = 0
        // Candidates a day, about: each listed hour and minute, on every day (on the listed weekdays of a weekly rule).
        let times = Int64(max(1, rule.byHour?.count ?? 1) * max(1, rule.byMinute?.count ?? 1))
        let perDay = rule.frequency == .weekly ? max(1, times * Int64(max(1, rule.byDay?.count ?? 1)) / 7) : times
        let sliceSeconds = max(1, Int64(candidatesPerSlice) / perDay) * 86_400
        var sliceStart = skip ?? first
        var counted = 0, before = 0, after = 0, candidates: Int64 = 0
        let shared = requestBudget
        if shared?.isSpent == true { return .stopped }
        while true {
            if Task.isCancelled { return .stopped }
            let sliceEnd = sliceStart.seconds > last.seconds - sliceSeconds ? last : sliceStart.adding(seconds: sliceSeconds - 1)
            recurrence.until = iteratorTime(sliceEnd)
            guard let iterator = icalrecur_iterator_new(recurrence, iteratorTime(first)) else { return .ended }
            defer { icalrecur_iterator_free(iterator) }
            if sliceStart > first { _ = icalrecur_iterator_set_start(iterator, iteratorTime(sliceStart)) }
            while true {
                guard after < maximumSteps, before <= RecurrenceRule.maximumCount else { return .stopped }
                if (before + after) & 1023 == 1023, Task.isCancelled { return .stopped }
                let next = icalrecur_iterator_next(iterator)
                guard icaltime_is_null_time(next) == 0, let local = ICalendarText.local(next) else { break }
                guard local <= sliceEnd else { break }
                counted += 1
                if let count = rule.count, counted > count { return .ended }
                if local < lower {
                    before += 1
                    continue
                }
                after += 1
                if !visit(local) { return .reached }
            }
            if rule.count.map({ counted >= $0 }) ?? false { return .ended }
            if sliceEnd >= last { return rule.until.map { $0 <= end } ?? false ? .ended : .reached }
            let looked = (sliceEnd.seconds - sliceStart.seconds) / 86_400 * perDay + perDay
            candidates += looked
            if candidates >= candidateBudget { return .stopped }
            if let shared, !shared.spend(looked) { return .stopped }
            sliceStart = sliceEnd.adding(seconds: 1)
        }
    }

    /// Candidates libical looks at between two checks for cancellation, about.
    static let candidatesPerSlice = 50_000
    /// Candidates one iteration looks at, at most, about (libical and ICU take a microsecond or two each).
    static let candidateBudget: Int64 = 250_000

    /// `local` as libical's iterator is given it: a wall time marked UTC. libical opens an ICU calendar
    /// in the start's zone for every iterator, and a floating start names ICU's unknown zone, whose
    /// look-up fails and then parses the name as a custom zone: a quarter of a fresh process's first
    /// agenda went there. UTC is found at once and, like the unknown zone, has no offset changes, so
    /// the wall times iterated are the same (``ICalendarText/local(_:)`` ignores the zone).
    static func iteratorTime(_ local: LocalDateTime) -> icaltimetype {
        var time = ICalendarText.icalTime(local)
        time.zone = utc ?? icaltimezone_get_utc_timezone()
        return time
    }

    /// A zone whose id is `UTC`, made from a VTIMEZONE of that id alone: libical's own UTC zone
    /// (`icaltimezone_get_utc_timezone`) first loads its list of built-in zones, parsing the tz
    /// database's `zone.tab`, a twentieth of a fresh process's first agenda. The iterator reads only
    /// the id, which it gives ICU. Never freed; asked for an offset, libical would cache an empty
    /// table of changes in it, under its own lock (the zone has no STANDARD or DAYLIGHT part).
    nonisolated(unsafe) private static let utc: OpaquePointer? = {
        guard let component = icalparser_parse_string("BEGIN:VTIMEZONE\r\nTZID:UTC\r\nEND:VTIMEZONE\r\n") else { return nil }
        guard let zone = icaltimezone_new() else {
            icalcomponent_free(component)
            return nil
        }
        guard icaltimezone_set_component(zone, component) == 1 else {
            icaltimezone_free(zone, 1)
            icalcomponent_free(component)
            return nil
        }
        return zone
    }()

    /// The start of the last occurrence of a finite rule, or `nil` for one that goes on without end or
    /// whose end was not found (the candidate budget, or a cancellation, cut the count short).
    /// A `count` rule is counted (at most ``RecurrenceRule/maximumCount`` occurrences); for an `until`
    /// rule, `until` itself stands in: no occurrence starts after it, and the answer only bounds where
    /// an event can show (``EventSpan``).
    static func lastStart(of rule: RecurrenceRule, from start: LocalDateTime) -> LocalDateTime? {
        if let until = rule.until { return max(start, until) }
        guard rule.count != nil else { return nil }
        var last = start
        let end = LocalDateTime(seconds: CalendarDate(year: LocalDateTime.years.upperBound, month: 12, day: 31)?.midnight.seconds ?? 0)
        // One step more than any count, so the count ends the iteration, not the step bound.
        let outcome = iterate(rule, from: start, notBefore: start, through: max(start, end), maximumSteps: RecurrenceRule.maximumCount + 1) { local in
            last = local
            return true
        }
        // Cut short (a rule whose candidates seldom pass), its end is not known: it may show on any later day.
        return outcome == .stopped ? nil : last
    }
}

/// libical's process-wide settings, made once: errors are reported, never fatal.
enum LibicalSetup {
    private static let done: Bool = {
        icalerror_set_errors_are_fatal(0)
        return true
    }()

    static func once() { _ = done }
}
