import CLibical

/// The occurrences of a recurrence rule, by libical's RRULE iterator (RFC 5545 §3.3.10).
///
/// libical iterates *wall times* from a floating start: 09:30 stays 09:30 on every date whatever the
/// zone does between them, and a zone turns each into an instant afterwards (``ZoneRules``). That is
/// how a weekly meeting keeps its local time across DST.
///
/// - Important: Iteration is bounded: a rule stops after ``maximumSteps`` occurrences even if it
///   would go on (a rule that never matches a date, such as the 30th of February, stops libical by
///   itself when it runs out of years).
enum RecurrenceExpansion {
    /// Occurrences looked at per rule and request, at most.
    static let maximumSteps = 100_000

    /// Calls `visit` with the start of each occurrence of `rule` (first occurrence `start`) that lies
    /// in `window`, in order; `visit` returns false to stop. Served from ``OccurrenceCache``.
    static func starts(of rule: RecurrenceRule, from start: LocalDateTime, in window: ClosedRange<LocalDateTime>,
                       _ visit: (LocalDateTime) -> Bool) {
        let text = rule.rruleText
        if let cached = OccurrenceCache.shared.starts(rruleText: text, from: start, in: window) {
            for local in cached where !visit(local) { return }
            return
        }
        // Too many occurrences to keep: iterate the window alone, skipping ahead when the rule allows.
        iterate(text, from: start, skippingTo: rule.count == nil && window.lowerBound > start ? window.lowerBound : nil,
                through: window.upperBound) { local in local < window.lowerBound || visit(local) } exhausted: { _ in }
    }

    /// Iterates the RRULE `text` from `start` (from `skippingTo` when given) through `end`, at most
    /// ``maximumSteps`` occurrences; `exhausted` says whether the rule ended before `end`.
    static func iterate(_ text: String, from start: LocalDateTime, skippingTo skip: LocalDateTime?, through end: LocalDateTime,
                        _ visit: (LocalDateTime) -> Bool, exhausted: (Bool) -> Void) {
        LibicalSetup.once()
        let recurrence = icalrecurrencetype_from_string(text)
        guard recurrence.freq != ICAL_NO_RECURRENCE, let iterator = icalrecur_iterator_new(recurrence, ICalendarText.icalTime(start))
        else { return exhausted(true) }
        defer { icalrecur_iterator_free(iterator) }
        if let skip { _ = icalrecur_iterator_set_start(iterator, ICalendarText.icalTime(skip)) }
        for _ in 0..<maximumSteps {
            let next = icalrecur_iterator_next(iterator)
            guard icaltime_is_null_time(next) == 0, let local = ICalendarText.local(next) else { return exhausted(true) }
            guard local <= end else { return exhausted(false) }
            if !visit(local) { return exhausted(false) }
        }
        exhausted(false)
    }

    /// The start of the last occurrence of a finite rule (`count` or `until`), or `nil` for one that
    /// goes on without end, or none at all.
    static func lastStart(of rule: RecurrenceRule, from start: LocalDateTime) -> LocalDateTime? {
        guard rule.count != nil || rule.until != nil else { return nil }
        var last: LocalDateTime?
        let end = LocalDateTime(seconds: CalendarDate(year: LocalDateTime.years.upperBound, month: 12, day: 31)?.midnight.seconds ?? 0)
        starts(of: rule, from: start, in: start...max(start, end)) { last = $0; return true }
        return last
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
