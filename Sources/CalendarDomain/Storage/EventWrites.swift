import SwitchboardCore

/// What a calendar write does to the stored events and the change log, decided once for every backend
/// (memory, SQLite, PostgreSQL): each applies ``rows`` and then appends ``records`` in its own write.
///
/// The rows are the write's end state per id (an event to store, or `nil`: deleted), so a backend may
/// apply them in any order or in batches; the records are in the order the write made its changes.
struct EventWrites {
    /// The events the write leaves, per id, in the order each id was first written.
    private(set) var rows: [(id: String, event: CalendarEvent?)] = []
    /// The change records, in order (appended last, after the rows).
    private(set) var records: [(id: String, kind: ChangeRecord.Kind)] = []
    /// Where each id's row is (ids compared by their bytes, as the stores compare them).
    private var position: [ExactID: Int] = [:]

    /// The events to store.
    var saved: [CalendarEvent] { rows.compactMap(\.event) }
    /// The ids to delete.
    var deleted: [String] { rows.filter { $0.event == nil }.map(\.id) }

    /// `put`'s rule: a new id is created; an existing one is replaced when `replacing` and different,
    /// else kept as it is (a retried create stores nothing twice). A later event of `events` with the
    /// id of an earlier one sees the earlier one as stored.
    ///
    /// - Parameter stored: the stored event of an id, before the write.
    static func put(_ events: [CalendarEvent], replacing: Bool,
                    stored: (String) throws -> CalendarEvent?) rethrows -> (writes: EventWrites, outcomes: [PutOutcome]) {
        var writes = EventWrites()
        let outcomes = try events.map { event -> PutOutcome in
            let existing = try writes.position[ExactID(event.id)].map { writes.rows[$0].event } ?? stored(event.id)
            if existing != nil, !replacing || existing == event { return .unchanged }
            let kind: ChangeRecord.Kind = existing == nil ? .created : .updated
            writes.write(event.id, event, kind)
            return kind == .created ? .created : .updated
        }
        return (writes, outcomes)
    }

    /// `edit`'s rule for the stored event `id` and what the change made of it (``EventChange``): the
    /// event updated (or destroyed, when `updated` is `nil`), then the event the edit created.
    static func edit(id: String, _ change: EventChange) -> EventWrites {
        var writes = EventWrites()
        writes.write(id, change.updated, change.updated == nil ? .destroyed : .updated)
        if let created = change.created { writes.write(created.id, created, .created) }
        return writes
    }

    private mutating func write(_ id: String, _ event: CalendarEvent?, _ kind: ChangeRecord.Kind) {
        if let index = position[ExactID(id)] {
            rows[index].event = event
        } else {
            position[ExactID(id)] = rows.count
            rows.append((id, event))
        }
        records.append((id, kind))
    }
}
