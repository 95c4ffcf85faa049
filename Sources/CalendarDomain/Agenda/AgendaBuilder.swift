import SwitchboardCore

/// Lays events out on the calendar days of a zone: the one place the agenda's rules live, used by
/// both services' callers alike.
///
/// - A day is a calendar day of `zone`, from its midnight to the next (23, 23.5, 24, 24.5 or 25 hours;
///   where midnight is skipped, the day starts when the clock resumes).
/// - A timed event is at its instant; it shows on every day it overlaps, `continuing` on the days
///   after the first. A floating event (no `timeZone`) is at that wall time in `zone`.
/// - An all-day event is a date: it shows on its dates whatever `zone` is.
struct AgendaBuilder {
    let zone: ZoneRules
    let from: CalendarDate
    let to: CalendarDate
    /// `dayStarts[i]` is the instant day `from + i` begins; one more than the days, for the last end.
    let dayStarts: [Int64]

    init(zone: ZoneRules, from: CalendarDate, to: CalendarDate) {
        self.zone = zone
        self.from = from
        self.to = to
        dayStarts = (0...(to.dayNumber - from.dayNumber + 1)).map { zone.instant(of: from.adding(days: $0).midnight) }
    }

    /// Every day from `from` to `to`, each with its events in agenda order.
    func days(_ events: [CalendarEvent]) -> [AgendaDay] {
        var entries = [[AgendaEntry]](repeating: [], count: dayStarts.count - 1)
        for event in events { place(event, into: &entries) }
        return entries.indices.map { index in
            AgendaDay(date: from.adding(days: Int64(index)), lengthMinutes: (dayStarts[index + 1] - dayStarts[index]) / 60,
                      events: Self.ordered(entries[index]))
        }
    }

    /// `entries` in agenda order, sorted by index: each entry is moved once, not at every swap.
    static func ordered(_ entries: [AgendaEntry]) -> [AgendaEntry] {
        guard entries.count > 1 else { return entries }
        return entries.indices.sorted { agendaOrder(entries[$0], entries[$1]) }.map { entries[$0] }
    }

    /// All-day first (by start, then title), then by start instant, then title, id and occurrence.
    static func agendaOrder(_ a: AgendaEntry, _ b: AgendaEntry) -> Bool {
        if a.showWithoutTime != b.showWithoutTime { return a.showWithoutTime }
        if a.showWithoutTime, a.start != b.start { return a.start < b.start }
        if let startA = a.startInstant, let startB = b.startInstant, startA != startB { return startA < startB }
        if a.title != b.title { return a.title < b.title }
        if a.id != b.id { return a.id < b.id }
        return (a.recurrenceId?.seconds ?? 0) < (b.recurrenceId?.seconds ?? 0)
    }

    private func place(_ event: CalendarEvent, into entries: inout [[AgendaEntry]]) {
        let longest = Self.longestDuration(event)
        var shared: EntryDetails?
        if event.showWithoutTime {
            let window = from.adding(days: -max(longest.days, 1)).midnight...to.midnight
            for occurrence in Occurrence.all(of: event, in: window) {
                placeAllDay(occurrence, of: event, details: details(occurrence, of: event, shared: &shared), into: &entries)
            }
            return
        }
        let eventZone = event.timeZone.flatMap(ZoneRules.named) ?? zone
        let slack: Int64 = 2 * 86_400
        let first = eventZone.local(at: dayStarts[0]).adding(seconds: -(longest.days * 86_400 + longest.seconds + slack))
        let last = eventZone.local(at: dayStarts[dayStarts.count - 1]).adding(seconds: slack)
        // Two wall times can be one instant (both sides of a skipped day): one occurrence, not two.
        var seen = Set<Int64>()
        for occurrence in Occurrence.all(of: event, in: first...last).sorted(by: { $0.start < $1.start }) {
            let start = eventZone.instant(of: occurrence.start)
            if seen.insert(start).inserted {
                placeTimed(occurrence, at: start, of: event, details: details(occurrence, of: event, shared: &shared), zone: eventZone,
                           into: &entries)
            }
        }
    }

    /// The details of `occurrence`: the event's own, made once per event, unless an override changes them.
    private func details(_ occurrence: Occurrence, of event: CalendarEvent, shared: inout EntryDetails?) -> EntryDetails {
        if occurrence.changesDetails { return EntryDetails(occurrence, of: event) }
        if let shared { return shared }
        let made = EntryDetails(occurrence, of: event)
        shared = made
        return made
    }

    private func placeAllDay(_ occurrence: Occurrence, of event: CalendarEvent, details: EntryDetails,
                             into entries: inout [[AgendaEntry]]) {
        let startDate = occurrence.start.date
        let lastDate = startDate.adding(days: max(occurrence.duration.days, 1) - 1)
        let firstShown = max(startDate, from), lastShown = min(lastDate, to)
        guard firstShown <= lastShown else { return }
        for day in firstShown.dayNumber...lastShown.dayNumber {
            entries[Int(day - from.dayNumber)].append(entry(occurrence, of: event, details: details, start: nil, end: nil,
                                                            continuing: day > startDate.dayNumber, endsAfterDay: day < lastDate.dayNumber))
        }
    }

    /// Places the occurrence that begins at the instant `start`.
    private func placeTimed(_ occurrence: Occurrence, at start: Int64, of event: CalendarEvent, details: EntryDetails,
                            zone eventZone: ZoneRules, into entries: inout [[AgendaEntry]]) {
        let days = occurrence.duration.days
        let end = (days == 0 ? start : eventZone.instant(of: occurrence.start.adding(seconds: days * 86_400))) + occurrence.duration.seconds
        let windowStart = dayStarts[0], windowEnd = dayStarts[dayStarts.count - 1]
        // An instant event (no duration) belongs to the day it is at; others to the days they overlap.
        guard start < windowEnd, end > windowStart || (end <= start && start >= windowStart) else { return }
        let firstDay = max(dayIndex(containing: start), 0)
        let lastDay = min(end > start ? dayIndex(containing: end - 1) : firstDay, dayStarts.count - 2)
        guard firstDay <= lastDay else { return }
        for day in firstDay...lastDay {
            entries[day].append(entry(occurrence, of: event, details: details, start: start, end: max(end, start),
                                      continuing: start < dayStarts[day], endsAfterDay: end > dayStarts[day + 1]))
        }
    }

    /// The index of the day holding `instant` (-1 before the first).
    private func dayIndex(containing instant: Int64) -> Int {
        var low = 0, high = dayStarts.count
        while low < high {
            let middle = (low + high) / 2
            if dayStarts[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }

    private func entry(_ occurrence: Occurrence, of event: CalendarEvent, details: EntryDetails, start: Int64?, end: Int64?,
                       continuing: Bool, endsAfterDay: Bool) -> AgendaEntry {
        AgendaEntry(id: event.id, recurrenceId: occurrence.recurrenceId, showWithoutTime: event.showWithoutTime, start: occurrence.start,
                    duration: occurrence.duration, startInstant: start, endInstant: end, continuing: continuing, endsAfterDay: endsAfterDay,
                    details: details, hasEventDetails: !occurrence.changesDetails)
    }

    /// The longest duration any occurrence of `event` has (overrides may lengthen one).
    static func longestDuration(_ event: CalendarEvent) -> EventDuration {
        var longest = event.duration
        for patch in (event.recurrenceOverrides ?? [:]).values {
            if let duration = patch.duration, duration.days * 86_400 + duration.seconds > longest.days * 86_400 + longest.seconds {
                longest = duration
            }
        }
        return longest
    }
}
