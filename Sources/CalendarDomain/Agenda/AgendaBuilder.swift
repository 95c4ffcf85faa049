import SwitchboardCore

/// Lays events out on the calendar days of a zone: the one place the agenda's rules live, used by
/// both services' callers alike.
///
/// - A day is a calendar day of `zone`, from its midnight to the next (23, 23.5, 24, 24.5 or 25 hours;
///   where midnight is skipped, the day starts when the clock resumes).
/// - A timed event is at its instant; it shows on every day it overlaps, `continuing` on the days
///   after the first. A floating event (no `timeZone`) is at that wall time in `zone`.
/// - An all-day event is a date: it shows on its dates whatever `zone` is.
///
/// Zones answer from offset tables over the range (``ZoneRules/covering(_:_:)``), and the entries of
/// all days go into one array (``AgendaLayout``) rather than one array per day.
///
/// - Important: Events yield at most ``maximumOccurrences`` occurrences per agenda (a one-off event
///   is one), in the order of the events; where that cuts one, the layout says from which day on it is incomplete
///   (``AgendaLayout/truncation``). Cancellation is checked between events and inside expansions.
struct AgendaBuilder {
    /// Occurrences one agenda places, at most, a one-off event's one included (``occurrenceLimit``'s default).
    static let maximumOccurrences = 100_000

    let zone: ZoneRules
    let from: CalendarDate
    let to: CalendarDate
    /// `dayStarts[i]` is the instant day `from + i` begins; one more than the days, for the last end.
    let dayStarts: [Int64]
    /// Occurrences this agenda places, at most.
    let occurrenceLimit: Int

    /// Instants either side of the range that zones keep tables for: the two days ``ZoneRules/instant(of:)``
    /// looks either side of a wall time, a day of zone difference, and the slack events are read with.
    private static let tableSlack: Int64 = 8 * 86_400

    init(zone: ZoneRules, from: CalendarDate, to: CalendarDate, occurrenceLimit: Int = Self.maximumOccurrences) {
        self.occurrenceLimit = occurrenceLimit
        let covered = zone.covering(from.midnight.seconds - Self.tableSlack, to.adding(days: 1).midnight.seconds + Self.tableSlack)
        self.zone = covered
        self.from = from
        self.to = to
        dayStarts = (0...(to.dayNumber - from.dayNumber + 1)).map { covered.instant(of: from.adding(days: $0).midnight) }
    }

    /// Every day from `from` to `to` with its events in agenda order, as one array of entries; throws
    /// `CancellationError` once the task is cancelled.
    func layout(_ events: [CalendarEvent]) throws -> AgendaLayout {
        var placed = Placed(budget: occurrenceLimit)
        var zones = EventZones(agendaZone: zone, lower: dayStarts[0] - Self.tableSlack, upper: dayStarts[dayStarts.count - 1] + Self.tableSlack)
        // Each event read where it lies: iterating the array would copy every event (a dozen references).
        try events.withUnsafeBufferPointer { events in
            for index in events.indices {
                try Task.checkCancellation()
                place(events[index], zones: &zones, into: &placed)
            }
        }
        // An expansion stops early when its task is cancelled: that is no truncation but a cancellation.
        try Task.checkCancellation()
        let lengths = (0..<(dayStarts.count - 1)).map { (dayStarts[$0 + 1] - dayStarts[$0]) / 60 }
        let truncation = placed.truncatedDay.map { day in
            AgendaTruncation(at: from.adding(days: Int64(day)), reason: placed.workCut
                ? "a repeating event's rule passes so seldom that finding its occurrences in this range takes too much work "
                    + "(its by-parts leave few of the times they make): days from `at` on may lack some; ask for a shorter range"
                : "events (each occurrence of a repeating one counted) number more than \(occurrenceLimit) "
                    + "in this range: days from `at` on lack some of them; ask for a shorter range")
        }
        return AgendaLayout(from: from, lengthMinutes: lengths, entries: placed.entries, days: placed.days, truncation: truncation)
    }

    /// All-day first (by start, then title), then by start instant, then title, id and occurrence.
    static func agendaOrder(_ a: AgendaEntry, _ b: AgendaEntry) -> Bool {
        if a.showWithoutTime != b.showWithoutTime { return a.showWithoutTime }
        if a.showWithoutTime, a.start != b.start { return a.start < b.start }
        if let startA = a.startInstant, let startB = b.startInstant, startA != startB { return startA < startB }
        if a.details !== b.details, a.title != b.title { return a.title < b.title }
        if ExactID(a.id) != ExactID(b.id) { return ExactID(a.id) < ExactID(b.id) }
        return (a.recurrenceId?.seconds ?? 0) < (b.recurrenceId?.seconds ?? 0)
    }

    /// Entries as they are placed, each with its day's index.
    private struct Placed {
        var entries: [AgendaEntry] = []
        var days: [Int32] = []
        /// Occurrences events may still yield (``occurrenceLimit``).
        var budget: Int
        /// The index of the first day that lacks occurrences the budget cut, if any.
        var truncatedDay: Int?

        /// A cut with occurrences still to spare: an expansion's work bound stopped it (a rule whose
        /// by-parts seldom pass), not ``budget``.
        var workCut = false

        mutating func truncate(at day: Int) {
            truncatedDay = min(truncatedDay ?? day, day)
            if budget > 0 { workCut = true }
        }

        /// Places one occurrence with `place` (a one-off event's, or the first a spent budget still looks
        /// for), which counts against ``budget`` when it shows at all: past the budget its entries are
        /// taken back and the first day it showed on is cut.
        mutating func placeOneOff(_ place: (inout Placed) -> Void) {
            let before = entries.count
            place(&self)
            guard entries.count > before else { return }
            guard budget > 0 else {
                let firstDay = Int(days[before])
                entries.removeSubrange(before...)
                days.removeSubrange(before...)
                truncate(at: firstDay)
                return
            }
            budget -= 1
        }

        /// Places an occurrence of a repeating event, counted against ``budget`` already; once the budget
        /// was `spent`, as ``placeOneOff(_:)`` does past it: only to say where the answer lacks some.
        mutating func placeOccurrence(spent: Bool, _ place: (inout Placed) -> Void) {
            if spent { placeOneOff(place) } else { place(&self) }
        }

        mutating func append(_ entry: AgendaEntry, day: Int) {
            entries.append(entry)
            days.append(Int32(truncatingIfNeeded: day))
        }
    }

    /// The zones events name, each looked up once per agenda and answering from a table.
    private struct EventZones {
        let agendaZone: ZoneRules
        let lower: Int64
        let upper: Int64
        var known: [(name: String, rules: ZoneRules?)] = []

        init(agendaZone: ZoneRules, lower: Int64, upper: Int64) {
            self.agendaZone = agendaZone
            self.lower = lower
            self.upper = upper
        }

        /// The zone of `event`: its own, else (floating, or a name no longer known) the agenda's.
        mutating func zone(of event: CalendarEvent) -> ZoneRules {
            guard let name = event.timeZone else { return agendaZone }
            for index in known.indices where known[index].name == name { return known[index].rules ?? agendaZone }
            let rules = ZoneRules.named(name).map { $0.covering(lower, upper) }
            known.append((name, rules))
            return rules ?? agendaZone
        }
    }

    private func place(_ event: CalendarEvent, zones: inout EventZones, into placed: inout Placed) {
        if event.showWithoutTime {
            let longest = Self.longestDuration(event)
            let window = from.adding(days: -max(longest.days, 1)).midnight...to.midnight
            var shared: EntryDetails?
            var cut: LocalDateTime?
            guard event.isRecurring else {
                let occurrence = Occurrence(of: event, at: event.start, patch: nil)
                placed.placeOneOff { placeAllDay(occurrence, of: event, details: EntryDetails(occurrence, of: event), into: &$0) }
                return
            }
            let spent = placed.budget <= 0
            let occurrences = Occurrence.all(of: event, in: window, limit: spent ? 2 : placed.budget, cut: &cut)
            if !spent { placed.budget -= occurrences.count }
            if let cut {
                // Occurrences left out start after `cut`, a midnight: on the next day or later.
                let day = Int(cut.date.dayNumber + 1 - from.dayNumber)
                if day < dayStarts.count - 1 { placed.truncate(at: max(day, 0)) }
            }
            for occurrence in occurrences {
                let details = details(occurrence, of: event, shared: &shared)
                placed.placeOccurrence(spent: spent) { placeAllDay(occurrence, of: event, details: details, into: &$0) }
            }
            return
        }
        let eventZone = zones.zone(of: event)
        let slack: Int64 = 2 * 86_400
        let lastLocal = eventZone.local(at: dayStarts[dayStarts.count - 1]).adding(seconds: slack)
        guard event.isRecurring else {
            // One occurrence: no list, no set.
            let longest = Self.longestDuration(event)
            let first = eventZone.local(at: dayStarts[0]).adding(seconds: -(longest.days * 86_400 + longest.seconds + slack))
            guard event.start >= first, event.start <= lastLocal else { return }
            let occurrence = Occurrence(of: event, at: event.start, patch: nil)
            placed.placeOneOff {
                placeTimed(occurrence, at: eventZone.instant(of: occurrence.start), of: event, details: EntryDetails(occurrence, of: event),
                           zone: eventZone, into: &$0)
            }
            return
        }
        let longest = Self.longestDuration(event)
        let first = eventZone.local(at: dayStarts[0]).adding(seconds: -(longest.days * 86_400 + longest.seconds + slack))
        // Two wall times can be one instant (both sides of a skipped hour or day, as Samoa's 2011-12-30
        // and 31): both are occurrences, each with its own recurrence id, and both show.
        var shared: EntryDetails?
        var cut: LocalDateTime?
        // Past the budget, the first occurrences are looked for only to say where the answer lacks some:
        // an expansion with no room at all says "from the first day" of every repeating event. Two, as
        // the event's own start, when in the window, takes one of them.
        let spent = placed.budget <= 0
        let occurrences = Occurrence.all(of: event, in: first...lastLocal, limit: spent ? 2 : placed.budget, cut: &cut)
        if !spent { placed.budget -= occurrences.count }
        if let cut {
            // Occurrences left out start after `cut`: at its instant or later.
            let day = dayIndex(containing: eventZone.instant(of: cut.adding(seconds: 1)))
            if day < dayStarts.count - 1 { placed.truncate(at: max(day, 0)) }
        }
        for occurrence in occurrences {
            let details = details(occurrence, of: event, shared: &shared)
            placed.placeOccurrence(spent: spent) {
                placeTimed(occurrence, at: eventZone.instant(of: occurrence.start), of: event, details: details, zone: eventZone, into: &$0)
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

    private func placeAllDay(_ occurrence: Occurrence, of event: CalendarEvent, details: EntryDetails, into placed: inout Placed) {
        let startDate = occurrence.start.date
        let lastDate = startDate.adding(days: max(occurrence.duration.days, 1) - 1)
        let firstShown = max(startDate, from), lastShown = min(lastDate, to)
        guard firstShown <= lastShown else { return }
        for day in firstShown.dayNumber...lastShown.dayNumber {
            placed.append(entry(occurrence, of: event, details: details, start: nil, end: nil,
                                continuing: day > startDate.dayNumber, endsAfterDay: day < lastDate.dayNumber),
                          day: Int(day - from.dayNumber))
        }
    }

    /// Places the occurrence that begins at the instant `start`.
    private func placeTimed(_ occurrence: Occurrence, at start: Int64, of event: CalendarEvent, details: EntryDetails,
                            zone eventZone: ZoneRules, into placed: inout Placed) {
        let days = occurrence.duration.days
        let end = (days == 0 ? start : eventZone.instant(of: occurrence.start.adding(seconds: days * 86_400))) + occurrence.duration.seconds
        let windowStart = dayStarts[0], windowEnd = dayStarts[dayStarts.count - 1]
        // An instant event (no duration) belongs to the day it is at; others to the days they overlap.
        guard start < windowEnd, end > windowStart || (end <= start && start >= windowStart) else { return }
        let firstDay = max(dayIndex(containing: start), 0)
        let lastDay = min(end > start ? dayIndex(containing: end - 1) : firstDay, dayStarts.count - 2)
        guard firstDay <= lastDay else { return }
        for day in firstDay...lastDay {
            placed.append(entry(occurrence, of: event, details: details, start: start, end: max(end, start),
                                continuing: start < dayStarts[day], endsAfterDay: end > dayStarts[day + 1]),
                          day: day)
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

/// The days of an agenda with their entries: every entry in one array, as placed, and the order
/// they show in, grouped by day.
struct AgendaLayout: Sendable {
    let from: CalendarDate
    /// Each day's length in minutes, in the agenda's zone.
    let lengthMinutes: [Int64]
    let entries: [AgendaEntry]
    /// Indices into `entries`, day by day, each day's in agenda order.
    let order: [Int32]
    /// Day `i`'s entries are `order[dayBounds[i]..<dayBounds[i + 1]]`.
    let dayBounds: [Int]
    /// Where ``AgendaBuilder/maximumOccurrences`` cut the agenda, if it did.
    let truncation: AgendaTruncation?

    /// Groups `entries` by `days` (the day of each) and sorts each day's.
    init(from: CalendarDate, lengthMinutes: [Int64], entries: [AgendaEntry], days: [Int32], truncation: AgendaTruncation?) {
        self.from = from
        self.truncation = truncation
        self.lengthMinutes = lengthMinutes
        self.entries = entries
        var bounds = [Int](repeating: 0, count: lengthMinutes.count + 1)
        for day in days { bounds[Int(day) + 1] += 1 }
        for index in 0..<lengthMinutes.count { bounds[index + 1] += bounds[index] }
        var next = bounds
        var order = [Int32](repeating: 0, count: entries.count)
        for (index, day) in days.enumerated() {
            order[next[Int(day)]] = Int32(truncatingIfNeeded: index)
            next[Int(day)] += 1
        }
        // Sorted first by (all-day, start) as numbers; only entries equal in that are compared in full.
        let keys = entries.map { entry in (entry.showWithoutTime ? 0 : 1, entry.showWithoutTime ? entry.start.seconds : entry.startInstant ?? 0) }
        entries.withUnsafeBufferPointer { entries in
            keys.withUnsafeBufferPointer { keys in
                for day in 0..<lengthMinutes.count where bounds[day + 1] - bounds[day] > 1 {
                    order[bounds[day]..<bounds[day + 1]].sort { a, b in
                        let keyA = keys[Int(a)], keyB = keys[Int(b)]
                        if keyA != keyB { return keyA < keyB }
                        return AgendaBuilder.agendaOrder(entries[Int(a)], entries[Int(b)])
                    }
                }
            }
        }
        self.order = order
        dayBounds = bounds
    }

    var dayCount: Int { lengthMinutes.count }

    func date(_ day: Int) -> CalendarDate { from.adding(days: Int64(day)) }

    /// The entries of day `day`, in agenda order.
    func events(_ day: Int) -> [AgendaEntry] { order[dayBounds[day]..<dayBounds[day + 1]].map { entries[Int($0)] } }

    /// The days as values.
    var days: [AgendaDay] {
        (0..<dayCount).map { AgendaDay(date: date($0), lengthMinutes: lengthMinutes[$0], events: events($0)) }
    }
}
