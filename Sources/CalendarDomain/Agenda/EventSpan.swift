/// The days an event can show on in any zone: from two days before its first start to two days after
/// its last end (`nil` when it repeats without end, or its end was not found). Both services store it to find the events of a
/// range without expanding every event.
public struct EventSpan: Sendable, Equatable {
    public var firstDay: Int64
    public var lastDay: Int64?

    /// Zones are at most 26 hours apart: two days either side cover any viewer.
    static let zoneSlack: Int64 = 2

    public init(_ event: CalendarEvent) {
        var first = event.start
        var last: LocalDateTime? = event.start
        for rule in event.recurrenceRules ?? [] {
            guard let lastStart = RecurrenceExpansion.lastStart(of: rule, from: event.start) else {
                last = nil
                break
            }
            last = last.map { max($0, lastStart) }
        }
        for (key, patch) in EventOverrides(event.recurrenceOverrides).byKey where !patch.isExclusion {
            let start = patch.start ?? key
            first = min(first, start)
            last = last.map { max($0, start) }
        }
        let longest = AgendaBuilder.longestDuration(event)
        firstDay = first.date.dayNumber - Self.zoneSlack
        lastDay = last.map { $0.date.dayNumber + longest.days + longest.seconds / 86_400 + 1 + Self.zoneSlack }
    }

    /// The span stored beside an event (``EventRows``).
    init(firstDay: Int64, lastDay: Int64?) {
        self.firstDay = firstDay
        self.lastDay = lastDay
    }

    /// True when the event may show on a day of `days`.
    public func touches(_ days: ClosedRange<CalendarDate>) -> Bool {
        firstDay <= days.upperBound.dayNumber && (lastDay ?? .max) >= days.lowerBound.dayNumber
    }
}
