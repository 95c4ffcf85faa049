import GRDB
import Synchronization
import SwitchboardCore
import SwitchboardStorage

/// Every event of the table, decoded, with its span, as of one change-log state: what an agenda
/// reads instead of decoding each event's JSON again (a fifth of a 31-day agenda's time). When the
/// state has moved (a write by this process or another), the events the change log names are read
/// again; when the log cannot say (pruned), the whole table is.
final class DecodedEvents: Sendable {
    private struct Snapshot {
        var state: String
        var events: [String: (event: CalendarEvent, span: EventSpan)]
    }

    private let snapshot = Mutex<Snapshot?>(nil)

    /// The events touching `days` as of `state`, in id order, read in `db`'s transaction.
    func events(_ db: Database, touching days: ClosedRange<CalendarDate>, at state: String) throws -> [CalendarEvent] {
        let kept = snapshot.withLock { $0 }
        var current: Snapshot
        if let kept, kept.state == state {
            current = kept
        } else if let kept, let changes = try? ChangeLog.changes(db, domain: calendarDomain, since: kept.state, limit: ChangeTracking.maxChanges),
                  !changes.hasMoreChanges, changes.newState == state {
            current = kept
            current.state = state
            for id in changes.created + changes.updated + changes.destroyed {
                current.events[id] = try EventRows.event(db, id: id).map { ($0, EventSpan($0)) }
            }
        } else {
            current = Snapshot(state: state, events: [:])
            for event in try EventRows.all(db) { current.events[event.id] = (event, EventSpan(event)) }
        }
        let fresh = current
        snapshot.withLock { $0 = fresh }
        return fresh.events.values.lazy.filter { $0.span.touches(days) }.map(\.event).sorted { $0.id < $1.id }
    }
}
