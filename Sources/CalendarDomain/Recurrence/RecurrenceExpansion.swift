import CLibical

/// The occurrences of a recurrence rule (RFC 5545 §3.3.10), period by period (``RuleExpander``).
///
/// Expansion iterates *wall times* from a floating start: 09:30 stays 09:30 on every date whatever the
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
    /// Starts near `lower`: a rule without `count` at the period that holds `lower`; a `count` rule
    /// with no `by*` part by arithmetic (its k-th start is `start` plus k periods, so it is the same
    /// rule from there with k fewer); any other `count` rule from `start`, which its `count` (at most
    /// ``RecurrenceRule/maximumCount``) bounds. At most `maximumSteps` occurrences at or after `lower`,
    /// and ``RecurrenceRule/maximumCount`` before it, are looked at. `start` is always the first
    /// occurrence (the agenda shows it whether or not the rule makes it) and so counts toward `count`
    /// (RFC 5545 §3.3.10: "The DTSTART property value always counts as the first occurrence").
    ///
    /// - Important: Every candidate the `by*` parts make (one per day of a period, times each listed
    ///   hour and minute) is charged: a rule whose filters never pass (February 30th, every minute)
    ///   would otherwise look at days to the window's end. When ``candidateBudget`` candidates are
    ///   charged, or the request's ``requestBudget`` is spent, or the task is cancelled, the iteration
    ///   stops (`.stopped`), as the step bound stops it.
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
        let endOutcome: Iteration = rule.until.map { $0 <= end } ?? false ? .ended : .reached
        let begin = skip ?? first
        guard last >= begin else { return rule.until.map { $0 < end } ?? false ? .ended : .reached }
        let shared = requestBudget
        if shared?.isSpent == true { return .stopped }
        let expander = RuleExpander(rule, start: first)
        let perDay = Int64(expander.times.count)
        // The start counts as the first occurrence even when the rule does not make it (counted from the start only).
        var startCounted = rule.count == nil || first != start
        var counted = 0, before = 0, after = 0, candidates: Int64 = 0, unspent: Int64 = 0
        func charge(_ count: Int64) -> Bool {
            candidates += count
            unspent += count
            if unspent >= 4096 {
                defer { unspent = 0 }
                if let shared, !shared.spend(unspent) { return false }
            }
            return candidates < candidateBudget
        }
        /// nil to go on, else how the iteration ends.
        func take(_ local: LocalDateTime) -> Iteration? {
            // Before `begin`: before the start, or (a rule without count) before the window.
            guard local >= begin else { return nil }
            if !startCounted {
                startCounted = true
                if local != start { counted += 1 }
            }
            if local > last { return rule.until.map { local > $0 } ?? false ? .ended : .reached }
            counted += 1
            if let count = rule.count, counted > count { return .ended }
            if local < lower {
                before += 1
                return before > RecurrenceRule.maximumCount ? .stopped : nil
            }
            guard after < maximumSteps else { return .stopped }
            after += 1
            return visit(local) ? nil : .reached
        }
        func run() -> Iteration {
            let beginDay = begin.date.dayNumber, lastDay = last.date.dayNumber
            var period = expander.firstPeriod(reaching: beginDay)
            while true {
                if Task.isCancelled { return .stopped }
                let ranges = expander.days(ofPeriod: period)
                period += 1
                guard let firstDay = ranges.first?.lowerBound else { return .ended }
                if firstDay > lastDay { return endOutcome }
                if expander.setPositions != nil {
                    // The whole period makes the set that positions pick from.
                    let looked = ranges.reduce(0) { $0 + Int64($1.count) }
                    if !charge(looked * perDay) { return .stopped }
                    let days = ranges.flatMap { $0.filter(expander.passes) }
                    for local in expander.picked(from: days) {
                        if let outcome = take(local) { return outcome }
                    }
                } else {
                    for range in ranges {
                        let from = max(range.lowerBound, beginDay)
                        guard from <= range.upperBound else { continue }
                        for day in from...range.upperBound {
                            if !charge(perDay) { return .stopped }
                            if day & 1023 == 1023, Task.isCancelled { return .stopped }
                            guard expander.passes(day) else { continue }
                            for time in expander.times {
                                if let outcome = take(LocalDateTime(seconds: day * 86_400 + time)) { return outcome }
                            }
                        }
                    }
                }
                if rule.count.map({ counted >= $0 }) ?? false { return .ended }
            }
        }
        let outcome = run()
        if unspent > 0, let shared { _ = shared.spend(unspent) }
        return outcome
    }

    /// Candidates one iteration looks at, at most, about (each day of a period, times its listed hours and minutes).
    static let candidateBudget: Int64 = 250_000

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
