/// The fixed length of a simple rule's period, for skipping ahead by arithmetic.
extension RecurrenceRule {
    /// Seconds between two occurrences of a `daily` or `weekly` rule with no `by*` part: its k-th
    /// occurrence is then its start plus k of them (wall time, so DST does not matter). `nil` for
    /// any other rule.
    var fixedPeriodSeconds: Int64? {
        let numbers = [byMonthDay, byYearDay, byWeekNo, byHour, byMinute, bySetPosition]
        guard (byDay ?? []).isEmpty, (byMonth ?? []).isEmpty, numbers.allSatisfy({ ($0 ?? []).isEmpty }) else { return nil }
        let days: Int64
        switch frequency {
        case .daily: days = 1
        case .weekly: days = 7
        case .monthly, .yearly: return nil
        }
        return days * 86_400 * Int64(max(interval ?? 1, 1))
    }
}
