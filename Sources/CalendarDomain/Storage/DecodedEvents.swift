import GRDB
import Synchronization
import SwitchboardCore
import SwitchboardStorage

/// The table's events as of one change-log state, for the ranges an agenda reads. A fresh process
/// reads only the rows that touch the range asked for (by the span index, one statement, each event's
/// JSON decoded there), so its first 31-day agenda reads a few hundred rows, not the table; a later
/// range outside the days covered so far reads the rows touching that range alone (not the days
/// between: a month 18 months away read 3,000 rows where it needs 200). Events held are kept by their
/// span (``EventTable``), so a range inside the covered days is found without SQL.
/// When the state has moved (a write by this process or another), the events the change log names
/// are read again; when the log cannot say (pruned), the table starts again.
///
/// - Important: The table is used under its lock, inside the caller's read transaction: concurrent
///   ranges wait for each other rather than read the same rows twice.
final class DecodedEvents: Sendable {
    private struct Snapshot {
        var state: String
        var table: EventTable
        /// The days every event of which is in `table`: disjoint ranges in order, none next to another.
        /// Events outside them may be there too (written since, or read for another range), each with
        /// its current span.
        var covered: [ClosedRange<CalendarDate>] = []
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
        return Snapshot(state: state, table: EventTable())
    }

    /// Reads the rows `snapshot` lacks for `days`: those touching `days`, unless the covered days hold
    /// them all. An event held already is current (the change log keeps it so) and is not read again.
    private static func cover(_ snapshot: inout Snapshot, _ days: ClosedRange<CalendarDate>, db: Database) throws {
        if snapshot.covered.contains(where: { $0.contains(days.lowerBound) && $0.contains(days.upperBound) }) { return }
        try EventRows.touching(db, days) { id, span, body in
            guard !snapshot.table.contains(id: id) else { return }
            snapshot.table.put(id: id, span: span, event: try StoredEvent.decode(bytes: body))
        }
        snapshot.covered = merging(days, into: snapshot.covered)
    }

    /// `covered` with `days` added: ranges that overlap `days` or lie next to it become one.
    static func merging(_ days: ClosedRange<CalendarDate>, into covered: [ClosedRange<CalendarDate>]) -> [ClosedRange<CalendarDate>] {
        var lower = days.lowerBound, upper = days.upperBound
        var merged: [ClosedRange<CalendarDate>] = []
        for range in covered {
            if range.upperBound.dayNumber < lower.dayNumber - 1 || range.lowerBound.dayNumber > upper.dayNumber + 1 {
                merged.append(range)
            } else {
                lower = min(lower, range.lowerBound)
                upper = max(upper, range.upperBound)
            }
        }
        let index = merged.firstIndex { $0.lowerBound > upper } ?? merged.endIndex
        merged.insert(lower...upper, at: index)
        return merged
    }
}
