import Synchronization
import SwitchboardCore

/// The events this process decoded from PostgreSQL rows, by id with the JSON they came from: a row read
/// again with the same body is not decoded again (a warm agenda decodes only what changed). Which
/// rows a range holds is always the database's answer; this only saves the decoding.
final class DecodedBodies: Sendable {
    private struct Entry {
        var body: String
        var event: CalendarEvent
    }

    /// Beyond this many kept events the cache starts over (it never holds more than the table's rows
    /// read lately).
    static let limit = 200_000

    private let kept = Mutex<[ExactID: Entry]>([:])

    /// The events of `rows`, in their order.
    func events(_ rows: [(id: String, body: String)]) throws -> [CalendarEvent] {
        let known = kept.withLock { kept in
            rows.map { row in kept[ExactID(row.id)].flatMap { $0.body == row.body ? $0.event : nil } }
        }
        var decoded: [(id: String, entry: Entry)] = []
        var events: [CalendarEvent] = []
        events.reserveCapacity(rows.count)
        for (row, known) in zip(rows, known) {
            if let known {
                events.append(known)
            } else {
                let event = try EventRow.decode(row.body)
                decoded.append((row.id, Entry(body: row.body, event: event)))
                events.append(event)
            }
        }
        if !decoded.isEmpty {
            kept.withLock { kept in
                if kept.count + decoded.count > Self.limit { kept.removeAll() }
                for (id, entry) in decoded { kept[ExactID(id)] = entry }
            }
        }
        return events
    }
}
