import GRDB
import Synchronization
import SwitchboardCore
import SwitchboardStorage

/// The table's events as of one change-log state, for the ranges an agenda reads. A fresh process
/// reads only the rows that touch the range asked for (by the span index, one statement, each event's
/// JSON decoded there), so its first 31-day agenda reads a few hundred rows, not the table; a later
/// range outside the days covered so far reads the rows touching the span of both. Events held are
/// kept by their span (``EventTable``), so a range inside the covered days is found without SQL.
/// When the state has moved (a write by this process or another), the events the change log names
/// are read again; when the log cannot say (pruned), the table starts again.
///
/// - Important: The table is used under its lock, inside the caller's read transaction: concurrent
///   ranges wait for each other rather than read the same rows twice.
final class DecodedEvents: Sendable {
    private struct Snapshot {
        var state: String
        var table: EventTable
        /// The days every event of which is in `table` (`nil`: none yet). Events outside them may be
        /// there too (written since), each with its current span.
        var covered: ClosedRange<CalendarDate>?
    }

    private let snapshot = Mutex<Snapshot?>(nil)

    /// The events touching `days` as of `state`, in id order, read in `db`'s transaction.
    func events(_ db: Database, touching days: ClosedRange<CalendarDate>, at state: String) throws -> [CalendarEvent] {
        try snapshot.withLock { kept in
            var current = try Self.current(kept.take(), db: db, state: state)
            defer { kept = current }
            try Self.cover(&current, days, db: db)
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
        return Snapshot(state: state, table: EventTable(), covered: nil)
    }

    /// Reads the rows `snapshot` lacks for `days`: those touching the span of `days` and the days
    /// covered so far. An event held already is current (the change log keeps it so) and is not read.
    private static func cover(_ snapshot: inout Snapshot, _ days: ClosedRange<CalendarDate>, db: Database) throws {
        let wanted: ClosedRange<CalendarDate>
        if let covered = snapshot.covered {
            if covered.contains(days.lowerBound), covered.contains(days.upperBound) { return }
            wanted = min(covered.lowerBound, days.lowerBound)...max(covered.upperBound, days.upperBound)
        } else {
            wanted = days
        }
        try EventRows.touching(db, wanted) { id, span, body in
            guard !snapshot.table.contains(id: id) else { return }
            snapshot.table.put(id: id, span: span, event: try EventRow.decode(body))
        }
        snapshot.covered = wanted
    }
}
