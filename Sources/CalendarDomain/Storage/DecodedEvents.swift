import GRDB
import Synchronization
import SwitchboardCore
import SwitchboardStorage

/// The table's events as of one change-log state, for the ranges an agenda reads: every event's span
/// (read from its row's columns, no JSON decoded), and the events decoded so far (``EventTable``).
/// A range decodes only the events it touches that no earlier range did, so the first 31-day agenda
/// of a fresh process decodes a few hundred events, not the table. When the state has moved (a write
/// by this process or another), the events the change log names are read again; when the log cannot
/// say (pruned), the whole table's spans are.
///
/// - Important: The table is used under its lock, inside the caller's read transaction: concurrent
///   ranges wait for each other rather than decode the same events twice.
final class DecodedEvents: Sendable {
    private struct Snapshot {
        var state: String
        var table: EventTable
    }

    private let snapshot = Mutex<Snapshot?>(nil)

    /// The events touching `days` as of `state`, in id order, read in `db`'s transaction.
    func events(_ db: Database, touching days: ClosedRange<CalendarDate>, at state: String) throws -> [CalendarEvent] {
        try snapshot.withLock { kept in
            var current = try Self.current(kept.take(), db: db, state: state)
            defer { kept = current }
            return try current.table.events(touching: days) { id in try EventRows.event(db, id: id) }
        }
    }

    /// `kept` brought to `state`.
    private static func current(_ kept: Snapshot?, db: Database, state: String) throws -> Snapshot {
        if let kept, kept.state == state { return kept }
        if var kept, let changes = try? ChangeLog.changes(db, domain: calendarDomain, since: kept.state, limit: ChangeTracking.maxChanges),
           !changes.hasMoreChanges, changes.newState == state {
            kept.state = state
            for id in changes.created + changes.updated + changes.destroyed {
                if let span = try EventRows.span(db, id: id) { kept.table.put(id: id, span: span) } else { kept.table.remove(id: id) }
            }
            return kept
        }
        var table = EventTable()
        try EventRows.allSpans(db) { id, span in table.put(id: id, span: span) }
        return Snapshot(state: state, table: table)
    }
}
