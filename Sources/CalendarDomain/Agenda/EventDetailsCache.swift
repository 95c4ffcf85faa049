import Synchronization
import SwitchboardCore

/// Each event's details as agenda JSON text (`,"title":…,"participants":{…}`), written once per
/// state of the calendar and copied into every entry that shows them: in a 2001-day agenda the
/// same stand-up's text is written once instead of 1,400 times.
///
/// - Important: The text is kept for one change-log `state` (a calendar's state changes with every
///   write); asked for another, the cache starts again. One cache serves one calendar.
final class EventDetailsCache: Sendable {
    private struct Kept {
        var state: String
        var details: [ExactID: [UInt8]]
    }

    private let kept = Mutex(Kept(state: "", details: [:]))

    /// The details kept for `state`, by event id (empty when the cache holds another state).
    func details(at state: String) -> [ExactID: [UInt8]] {
        kept.withLock { $0.state == state ? $0.details : [:] }
    }

    /// Keeps `written` (details of `state` not yet kept).
    func keep(_ written: [ExactID: [UInt8]], at state: String) {
        guard !written.isEmpty else { return }
        kept.withLock { kept in
            if kept.state != state { kept = Kept(state: state, details: [:]) }
            kept.details.merge(written) { old, _ in old }
        }
    }
}
