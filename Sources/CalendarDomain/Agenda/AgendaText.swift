import SwitchboardCore

/// Writes a `calendar.agenda` answer as JSON text, what ``CalendarAgenda/Result``'s `Encodable`
/// conformance writes: each entry first with what is its own, then its event's details, copied
/// from ``EventDetailsCache`` unless an override changes them.
///
/// Two passes: the first finds each entry's details text (kept, or written once per details object)
/// and adds up a bound of the answer's length; the second writes the answer with a ``ByteCursor``
/// into one buffer of that size, dates and times digit by digit.
struct AgendaText {
    private let known: [ExactID: [UInt8]]
    /// Details written by this answer, for the cache.
    private(set) var written: [ExactID: [UInt8]] = [:]

    init(known: [ExactID: [UInt8]]) {
        self.known = known
    }

    /// Bytes an entry takes at most besides its id and details: the member names and punctuation
    /// (about 110 bytes), four date-times of at most 40 bytes each, and the booleans.
    private static let entryOverhead = 320
    /// Bytes a day takes at most besides its entries.
    private static let dayOverhead = 120

    /// Appends the text of `result` to `text`.
    mutating func write(_ result: CalendarAgenda.Result, into text: inout [UInt8]) {
        let layout = result.layout
        // Pass 1: each entry's details text, by its details object.
        var texts: [[UInt8]] = []
        var textOf: [ObjectIdentifier: Int32] = [:]
        var entryText = [Int32](repeating: 0, count: layout.entries.count)
        var bound = text.count + 200 + 6 * (result.timeZone.utf8.count + result.state.utf8.count) + Self.dayOverhead * layout.dayCount
            + (result.truncated.map { 60 + 6 * $0.reason.utf8.count } ?? 0)
        // Entries read where they lie (a copy of each would retain its id and details).
        let entries = layout.entries
        entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                let identifier = ObjectIdentifier(entries[index].details)
                let found: Int32
                if let kept = textOf[identifier] {
                    found = kept
                } else {
                    let details: [UInt8]
                    let id = ExactID(entries[index].id), shared = entries[index].hasEventDetails
                    if shared, let kept = known[id] ?? written[id] {
                        details = kept
                    } else {
                        var made = JSONText()
                        Self.writeDetails(of: entries[index], into: &made)
                        details = made.bytes
                        if shared { written[id] = details }
                    }
                    found = Int32(texts.count)
                    texts.append(details)
                    textOf[identifier] = found
                }
                entryText[index] = found
                bound += Self.entryOverhead + 6 * entries[index].id.utf8.count + texts[Int(found)].count
            }
        }
        // Pass 2: the text, into a buffer of `bound` bytes.
        let prefix = text
        text = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            var out = ByteCursor(base)
            out.bytes(prefix)
            entries.withUnsafeBufferPointer { entries in
                texts.withUnsafeBufferPointer { texts in
                    Self.write(result, entries: entries, texts: texts, entryText: entryText, to: &out)
                }
            }
            count = out.count(from: base)
            assert(count <= bound, "the agenda's text outgrew its bound")
        }
    }

    /// The answer's object: `entries` are the layout's, `texts[entryText[i]]` the details of entry `i`.
    private static func write(_ result: CalendarAgenda.Result, entries: UnsafeBufferPointer<AgendaEntry>,
                              texts: UnsafeBufferPointer<[UInt8]>, entryText: [Int32], to out: inout ByteCursor) {
        let layout = result.layout
        out.raw("{\"timeZone\":")
        out.string(result.timeZone)
        out.raw(",\"from\":")
        out.date(result.from)
        out.raw(",\"to\":")
        out.date(result.to)
        out.raw(",\"days\":[")
        for day in 0..<layout.dayCount {
            if day > 0 { out.byte(UInt8(ascii: ",")) }
            out.raw("{\"date\":")
            out.date(layout.date(day))
            out.raw(",\"lengthMinutes\":")
            out.integer(layout.lengthMinutes[day])
            out.raw(",\"events\":[")
            for position in layout.dayBounds[day]..<layout.dayBounds[day + 1] {
                if position > layout.dayBounds[day] { out.byte(UInt8(ascii: ",")) }
                let index = Int(layout.order[position])
                if let first = entries.baseAddress { write(first + index, details: texts[Int(entryText[index])], to: &out) }
            }
            out.raw("]}")
        }
        out.raw("],\"state\":")
        out.string(result.state)
        if let truncated = result.truncated {
            out.raw(",\"truncated\":{\"at\":")
            out.date(truncated.at)
            out.raw(",\"reason\":")
            out.string(truncated.reason)
            out.byte(UInt8(ascii: "}"))
        }
        out.byte(UInt8(ascii: "}"))
    }

    /// One entry, read where it lies (a copy would retain its id and details).
    private static func write(_ entry: UnsafePointer<AgendaEntry>, details: borrowing [UInt8], to out: inout ByteCursor) {
        out.raw("{\"id\":")
        out.string(entry.pointee.id)
        if let recurrenceId = entry.pointee.recurrenceId {
            out.raw(",\"recurrenceId\":")
            out.localDateTime(recurrenceId)
        }
        out.raw(",\"start\":")
        out.localDateTime(entry.pointee.start)
        if let start = entry.pointee.startInstant, let end = entry.pointee.endInstant {
            out.raw(",\"startsAt\":")
            out.instant(start)
            out.raw(",\"endsAt\":")
            out.instant(end)
        }
        out.raw(",\"continuing\":")
        out.bool(entry.pointee.continuing)
        out.raw(",\"endsAfterDay\":")
        out.bool(entry.pointee.endsAfterDay)
        out.bytes(details)
        out.byte(UInt8(ascii: "}"))
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
        // In key order, as the encoder writes a dictionary (its own order differs between processes).
        for (key, value) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            if !first { text.raw(",") }
            first = false
            text.string(key)
            text.raw(":")
            write(value, &text)
        }
        text.raw("}")
    }
}
