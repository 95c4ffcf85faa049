/// Writes a `calendar.agenda` answer as JSON text, what ``CalendarAgenda/Result``'s `Encodable`
/// conformance writes: each entry first with what is its own, then its event's details, copied
/// from ``EventDetailsCache`` unless an override changes them.
struct AgendaText {
    private var text: JSONText
    private var known: [String: [UInt8]]
    /// Details written by this answer, for the cache.
    private(set) var written: [String: [UInt8]] = [:]

    init(into bytes: [UInt8], known: [String: [UInt8]]) {
        text = JSONText(startingWith: bytes)
        self.known = known
    }

    /// The text so far.
    var bytes: [UInt8] { text.bytes }

    mutating func write(_ result: CalendarAgenda.Result) {
        text.raw("{")
        text.key("timeZone")
        text.string(result.timeZone)
        text.nextKey("from")
        text.date(result.from)
        text.nextKey("to")
        text.date(result.to)
        text.nextKey("days")
        text.raw("[")
        for (index, day) in result.days.enumerated() {
            if index > 0 { text.raw(",") }
            write(day)
        }
        text.raw("]")
        text.nextKey("state")
        text.string(result.state)
        text.raw("}")
    }

    private mutating func write(_ day: AgendaDay) {
        text.raw("{")
        text.key("date")
        text.date(day.date)
        text.nextKey("lengthMinutes")
        text.integer(day.lengthMinutes)
        text.nextKey("events")
        text.raw("[")
        for index in day.events.indices {
            if index > 0 { text.raw(",") }
            write(day.events[index])
        }
        text.raw("]}")
    }

    private mutating func write(_ entry: AgendaEntry) {
        text.raw("{")
        text.key("id")
        text.string(entry.id)
        if let recurrenceId = entry.recurrenceId {
            text.nextKey("recurrenceId")
            text.localDateTime(recurrenceId)
        }
        text.nextKey("start")
        text.localDateTime(entry.start)
        if let start = entry.startInstant, let end = entry.endInstant {
            text.nextKey("startsAt")
            text.instant(start)
            text.nextKey("endsAt")
            text.instant(end)
        }
        text.nextKey("continuing")
        text.bool(entry.continuing)
        text.nextKey("endsAfterDay")
        text.bool(entry.endsAfterDay)
        if entry.hasEventDetails, let details = known[entry.id] ?? written[entry.id] {
            text.raw(details)
        } else {
            var details = JSONText()
            Self.writeDetails(of: entry, into: &details)
            text.raw(details.bytes)
            if entry.hasEventDetails { written[entry.id] = details.bytes }
        }
        text.raw("}")
    }

    /// `,"title":…` and the other members an entry takes from its event (or its override).
    private static func writeDetails(of entry: AgendaEntry, into text: inout JSONText) {
        text.nextKey("title")
        text.string(entry.title)
        if let description = entry.description {
            text.nextKey("description")
            text.string(description)
        }
        text.nextKey("showWithoutTime")
        text.bool(entry.showWithoutTime)
        if let timeZone = entry.timeZone {
            text.nextKey("timeZone")
            text.string(timeZone)
        }
        text.nextKey("duration")
        text.string(entry.duration.description)
        if let locations = entry.locations {
            text.nextKey("locations")
            writeObject(locations, into: &text) { location, text in
                text.raw("{")
                text.key("name")
                text.string(location.name)
                text.raw("}")
            }
        }
        if let participants = entry.participants {
            text.nextKey("participants")
            writeObject(participants, into: &text, write)
        }
    }

    private static func write(_ participant: Participant, into text: inout JSONText) {
        text.raw("{")
        var first = true
        func member(_ name: StaticString) {
            if first { text.key(name) } else { text.nextKey(name) }
            first = false
        }
        if let name = participant.name {
            member("name")
            text.string(name)
        }
        if let email = participant.email {
            member("email")
            text.string(email)
        }
        if let roles = participant.roles {
            member("roles")
            writeObject(roles, into: &text) { value, text in text.bool(value) }
        }
        text.raw("}")
    }

    private static func writeObject<Value>(_ members: [String: Value], into text: inout JSONText,
                                           _ write: (Value, inout JSONText) -> Void) {
        text.raw("{")
        var first = true
        for (key, value) in members {
            if !first { text.raw(",") }
            first = false
            text.string(key)
            text.raw(":")
            write(value, &text)
        }
        text.raw("}")
    }
}
