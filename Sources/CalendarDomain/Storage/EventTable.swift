import SwitchboardCore

/// Events by id with the span of days each can show on (``EventSpan``), kept so that a range is
/// found by comparing spans alone: only the events that touch it are copied out. An event may be
/// held by its span only, and read when a range first needs it (the SQLite service decodes each
/// event's JSON on first use, not the whole table).
///
/// The rows are kept in id order (rows put out of order, as the SQLite service reads them, mark the
/// table to be put back in order before the next range), so a range comes out in id order as found,
/// with no sort of its events. Ids are compared by their bytes (``ExactID``), as SQLite and PostgreSQL
/// compare them: `"caf\u{E9}"` and `"cafe\u{301}"` are two events, in the stores' order.
struct EventTable {
    private var position: [ExactID: Int] = [:]
    private var ids: [String] = []
    private var spans: [EventSpan] = []
    private var events: [CalendarEvent?] = []
    /// True when `ids` is in ascending order.
    private var inOrder = true
    /// Bumped by every change of the table.
    private var generation = 0
    /// The last range's events, handed out again while the table has not changed (the same agenda
    /// asked again copies no event).
    private var lastRange: (days: ClosedRange<CalendarDate>, generation: Int, events: [CalendarEvent])?

    var isEmpty: Bool { ids.isEmpty }

    /// Adds or replaces `event`.
    mutating func put(_ event: CalendarEvent) {
        put(id: event.id, span: EventSpan(event), event: event)
    }

    /// Adds or replaces the event `id`, known by its span until it is read.
    mutating func put(id: String, span: EventSpan, event: CalendarEvent? = nil) {
        generation &+= 1
        if let index = position[ExactID(id)] {
            spans[index] = span
            events[index] = event
            return
        }
        if inOrder, let last = ids.last, !(ExactID(last) < ExactID(id)) { inOrder = false }
        position[ExactID(id)] = ids.count
        ids.append(id)
        spans.append(span)
        events.append(event)
    }

    mutating func remove(id: String) {
        guard let index = position.removeValue(forKey: ExactID(id)) else { return }
        generation &+= 1
        let last = ids.count - 1
        if index != last {
            ids.swapAt(index, last)
            spans.swapAt(index, last)
            events.swapAt(index, last)
            position[ExactID(ids[index])] = index
            inOrder = false
        }
        ids.removeLast()
        spans.removeLast()
        events.removeLast()
    }

    func contains(id: String) -> Bool { position[ExactID(id)] != nil }

    subscript(id: String) -> CalendarEvent? {
        position[ExactID(id)].flatMap { events[$0] }
    }

    /// Puts the rows back in id order, after writes out of order.
    private mutating func order() {
        guard !inOrder else { return }
        let sorted = ids.indices.sorted { ExactID(ids[$0]) < ExactID(ids[$1]) }
        ids = sorted.map { ids[$0] }
        spans = sorted.map { spans[$0] }
        events = sorted.map { events[$0] }
        for (index, id) in ids.enumerated() { position[ExactID(id)] = index }
        inOrder = true
        generation &+= 1
    }

    /// The events that may show on a day of `days`, in id order; `read` supplies those held by their
    /// span only (and they are kept); one it cannot find is left out.
    mutating func events(touching days: ClosedRange<CalendarDate>, read: (String) throws -> CalendarEvent?) rethrows -> [CalendarEvent] {
        order()
        if let lastRange, lastRange.days == days, lastRange.generation == generation { return lastRange.events }
        lastRange = nil
        var found: [CalendarEvent] = []
        for index in spans.indices where spans[index].touches(days) {
            if let event = events[index] {
                found.append(event)
            } else if let event = try read(ids[index]) {
                events[index] = event
                found.append(event)
                generation &+= 1
            }
        }
        lastRange = (days, generation, found)
        return found
    }

    /// Every event read, in id order.
    var all: [CalendarEvent] { events.compactMap { $0 }.sorted { ExactID($0.id) < ExactID($1.id) } }
}
