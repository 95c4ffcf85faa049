import SwitchboardCore

/// The outline of an iCalendar text, read from its BEGIN and END lines before libical parses it, for
/// what libical's parser would lose without a word: it drops the whole file when one component lacks
/// its END, nests a VEVENT inside one left open, and reads only the first 500 dates of an RDATE or
/// EXDATE line.
///
/// ``text`` is what libical gets: each VEVENT without END left out (and listed in ``broken``), other
/// components left open closed, stray END lines dropped, components nested deeper than
/// ``maximumDepth`` left out (libical's parser and `icalcomponent_free` recurse, and a file of
/// 300,000 nested BEGIN lines overran a thread's stack), and long RDATE and EXDATE lines split into
/// lines of at most ``valuesPerLine`` dates. Lines are counted from 1 as the file has them (a folded
/// line counts where it starts).
struct ICalendarOutline {
    /// Where a VEVENT is: its position among all the file's VEVENTs (from 0) and its BEGIN line.
    struct Place: Sendable, Equatable {
        var index: Int
        var line: Int
    }

    /// A VEVENT left out, and why.
    struct Broken: Sendable, Equatable {
        var place: Place
        var reason: String
    }

    /// The text for libical.
    private(set) var text = ""
    /// The VEVENTs ``text`` holds, in order.
    private(set) var events: [Place] = []
    /// The VEVENTs left out.
    private(set) var broken: [Broken] = []
    /// True when a line is BEGIN:VCALENDAR: the text is iCalendar at all.
    private(set) var hasCalendar = false

    /// How many values of one RDATE or EXDATE line libical 3.0 reads; it drops the rest unsaid.
    static let valuesPerLine = 500

    private var output: [UInt8] = []
    /// The open components outside a VEVENT, outermost first.
    private var open: [String] = []
    /// The VEVENT being read: where it is, where its text starts in `output`, what opened inside it, and
    /// why it is to be left out at its END, if it is (``ruleRefusal(_:)``).
    private var current: (place: Place, offset: Int, inner: [String], refusal: String?)?
    private var count = 0
    /// How many BEGIN lines deeper than ``maximumDepth`` are open: their lines are left out.
    private var overflow = 0
    /// The components open in a VEVENT nested inside a component of another (a VALARM), from that
    /// VEVENT in: their lines are left out. At most ``maximumDepth`` names; `nestedOverflow` counts the rest.
    private var nested: [String] = []
    private var nestedOverflow = 0

    /// The deepest nesting of components libical gets (RFC 5545 needs 3: VCALENDAR, VEVENT, VALARM).
    static let maximumDepth = 16

    init(_ source: String) {
        let bytes = Array(source.utf8)
        output.reserveCapacity(bytes.count + 64)
        // A UTF-8 byte order mark before the first line (Windows editors write one) is no part of it.
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0, line = 1
        while start < bytes.count {
            // A logical line: the physical one and each following one that starts with a space or tab.
            var end = start, lines = 0
            repeat {
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                if end < bytes.count { end += 1 }
                lines += 1
            } while end < bytes.count && (bytes[end] == 0x20 || bytes[end] == 0x09)
            take(bytes[start..<end], line: line, folded: lines > 1)
            start = end
            line += lines
        }
        if let current { drop(current.place, current.offset, "no END:VEVENT before the end of the file") }
        close(open[...])
        text = String(decoding: output, as: UTF8.self)
    }

    private enum Keyword {
        case begin(String), end(String)

        /// The line as libical reads it.
        var line: String {
            switch self {
            case .begin(let name): "BEGIN:\(name)\r\n"
            case .end(let name): "END:\(name)\r\n"
            }
        }
    }

    private mutating func take(_ line: ArraySlice<UInt8>, line number: Int, folded: Bool) {
        let keyword = Self.keyword(line, folded: folded)
        // libical gets BEGIN and END lines as the outline read them (it drops a component begun
        // `BEGIN;X-A=1:VEVENT` and reads a folded one apart).
        let line = keyword.map { Array($0.line.utf8)[...] } ?? line
        if !nested.isEmpty, skipNested(keyword) { return }
        // A VEVENT closes what is open inside its VCALENDAR (and the VEVENT before), an END:VEVENT what
        // is open inside its VEVENT: either ends what was too deep.
        let depth = open.count + (current?.inner.count ?? 0)
        let resets = switch keyword {
        case .begin("VEVENT")?: current != nil || open.contains("VCALENDAR")
        case .end("VEVENT")?: current != nil
        default: false
        }
        if resets {
            overflow = 0
        } else if case .begin(let name)? = keyword, overflow > 0 || depth >= Self.maximumDepth {
            if name == "VCALENDAR" { hasCalendar = true }
            if name == "VEVENT" {
                broken.append(Broken(place: Place(index: count, line: number),
                                     reason: "inside components nested more than \(Self.maximumDepth) deep; the event is not imported"))
                count += 1
            }
            overflow += 1
            return
        } else if overflow > 0 {
            if case .end? = keyword { overflow -= 1 }
            return
        }
        if var event = current {
            switch keyword {
            case .begin("VEVENT")? where !event.inner.isEmpty:
                // RFC 5545 nests no VEVENT in a VALARM or another component of a VEVENT: that one is
                // left out, the VEVENT around it kept (libical had read the two as one left open).
                let around = event.inner.last == "VALARM" ? "a VALARM" : "another component"
                broken.append(Broken(place: Place(index: count, line: number),
                                     reason: "inside \(around) of the VEVENT around it, where no VEVENT belongs; the event is not imported"))
                count += 1
                nested = ["VEVENT"]
                return
            case .begin("VEVENT")?:
                drop(event.place, event.offset, "no END:VEVENT before the next BEGIN:VEVENT")
            case .begin(let name)?:
                event.inner.append(name)
                current = event
                return emit(line)
            case .end(let name)? where name == "VEVENT" || event.inner.contains(name):
                if name == "VEVENT" {
                    if let refusal = event.refusal { return drop(event.place, event.offset, refusal) }
                    close(event.inner[...])
                    emit(line)
                    events.append(event.place)
                    current = nil
                } else if let position = event.inner.lastIndex(of: name) {
                    close(event.inner[(position + 1)...])
                    event.inner.removeSubrange(position...)
                    current = event
                    emit(line)
                }
                return
            case .end?:
                drop(event.place, event.offset, "no END:VEVENT")
            case nil:
                if event.refusal == nil, event.inner.isEmpty, let refusal = Self.ruleRefusal(line) {
                    event.refusal = refusal
                    current = event
                }
                return emitSplitting(line)
            }
        }
        switch keyword {
        case .begin("VEVENT")?:
            if let calendar = open.lastIndex(of: "VCALENDAR") {
                close(open[(calendar + 1)...])
                open.removeSubrange((calendar + 1)...)
            }
            current = (Place(index: count, line: number), output.count, [], nil)
            count += 1
            emit(line)
        case .begin(let name)?:
            if name == "VCALENDAR" { hasCalendar = true }
            open.append(name)
            emit(line)
        case .end(let name)?:
            guard let position = open.lastIndex(of: name) else { return }  // an END of nothing open: left out
            close(open[(position + 1)...])
            open.removeSubrange(position...)
            emit(line)
        case nil:
            emitSplitting(line)
        }
    }

    /// Leaves out a line of a nested VEVENT (``nested``) and returns true, or returns false for the line
    /// after it: an END of a component open around it, when the nested one lacks its END.
    private mutating func skipNested(_ keyword: Keyword?) -> Bool {
        switch keyword {
        case .begin(let name)?:
            if nested.count < Self.maximumDepth { nested.append(name) } else { nestedOverflow += 1 }
        case .end(let name)?:
            if nestedOverflow > 0 {
                nestedOverflow -= 1
            } else if let position = nested.lastIndex(of: name) {
                nested.removeSubrange(position...)
            } else {
                nested = []
                return false
            }
        case nil:
            break
        }
        return true
    }

    /// Leaves out the VEVENT begun at `offset`.
    private mutating func drop(_ place: Place, _ offset: Int, _ reason: String) {
        output.removeSubrange(offset...)
        broken.append(Broken(place: place, reason: reason + "; the event is not imported"))
        current = nil
    }

    /// END lines for `names`, innermost first.
    private mutating func close(_ names: ArraySlice<String>) {
        for name in names.reversed() { output.append(contentsOf: Array(Keyword.end(name).line.utf8)) }
    }

    private mutating func emit(_ line: ArraySlice<UInt8>) {
        if line.count > Self.longestPhysicalLine { return emitFolding(line) }
        output.append(contentsOf: line)
        if line.last != 0x0A { output.append(contentsOf: [0x0D, 0x0A]) }
    }

    /// The longest physical line libical gets. Its line reader takes a line in small pieces and scans
    /// what it has so far for each, so its time grows with the square of a line's length (a line of
    /// 8 MiB took 16 s, and cancelling could not stop it); folded into lines of this length (a
    /// line break and a space, which unfolding removes, RFC 5545 §3.1) it reads in linear time.
    static let longestPhysicalLine = 4096

    /// `line` with a fold before the first character after every ``longestPhysicalLine`` bytes of a
    /// physical line (never inside a UTF-8 sequence).
    private mutating func emitFolding(_ line: ArraySlice<UInt8>) {
        var length = 0
        for byte in line {
            if byte == 0x0A {
                length = 0
            } else if length >= Self.longestPhysicalLine, byte & 0xC0 != 0x80, byte != 0x0D {
                output.append(contentsOf: [0x0D, 0x0A, 0x20])
                length = 1
            }
            output.append(byte)
            if byte != 0x0A { length += 1 }
        }
        if line.last != 0x0A { output.append(contentsOf: [0x0D, 0x0A]) }
    }

    /// `line`, as lines of at most ``valuesPerLine`` values when it is a longer RDATE or EXDATE; a
    /// TZOFFSETFROM or TZOFFSETTO that is no UTC offset is left out (libical reads `abc` as `+0000`
    /// without a word, and its VTIMEZONE, lacking the offset, is then refused: ``VTimezoneBounds``).
    private mutating func emitSplitting(_ line: ArraySlice<UInt8>) {
        if line.contains(0x5C), let name = Self.name(line), Self.escapedTexts.contains(name), let kept = Self.keepingEscapedCharacters(line) {
            return emit(kept[...])
        }
        if line.count < 64, let name = Self.name(line), name == "TZOFFSETFROM" || name == "TZOFFSETTO", !Self.isOffset(line) { return }
        guard line.count > Self.valuesPerLine * 8, let name = Self.name(line), name == "RDATE" || name == "EXDATE" else { return emit(line) }
        let unfolded = Self.unfolded(line)
        guard let colon = Self.valueStart(unfolded[...]) else { return emit(line) }
        let values = unfolded[(colon + 1)...].split(separator: 0x2C, omittingEmptySubsequences: false)
        guard values.count > Self.valuesPerLine else { return emit(line) }
        var start = 0
        while start < values.count {
            let chunk = values[start..<min(start + Self.valuesPerLine, values.count)]
            output.append(contentsOf: unfolded[...colon])
            for (index, value) in chunk.enumerated() {
                if index > 0 { output.append(0x2C) }
                output.append(contentsOf: value)
            }
            output.append(contentsOf: [0x0D, 0x0A])
            start += Self.valuesPerLine
        }
    }

    /// The texts switchboard reads, whose backslash escapes libical reads.
    private static let escapedTexts: Set<String> = ["SUMMARY", "DESCRIPTION", "LOCATION", ICalendarText.extraLocation]

    /// What libical reads after a backslash in a text: RFC 5545's `\\`, `\;`, `\,`, `\n` and `\N`, and
    /// its own `\"`, `\t`, `\r`, `\b`, `\f` (and upper case), which its writer uses.
    private static let knownEscapes = Set("\\;,\"nNtTrRbBfF".utf8)

    /// `line` (a text property) unfolded, with a backslash before any other character left out so the
    /// character is kept (libical read `10\:30` as `10 30`), or `nil` when it has no such backslash.
    private static func keepingEscapedCharacters(_ line: ArraySlice<UInt8>) -> [UInt8]? {
        let unfolded = Self.unfolded(line)
        guard let colon = valueStart(unfolded[...]) else { return nil }
        var result = Array(unfolded[...colon]), index = colon + 1, changed = false
        result.reserveCapacity(unfolded.count)
        while index < unfolded.count {
            if unfolded[index] == 0x5C, index + 1 < unfolded.count {
                if knownEscapes.contains(unfolded[index + 1]) {
                    result.append(contentsOf: unfolded[index...(index + 1)])
                } else {
                    result.append(unfolded[index + 1])
                    changed = true
                }
                index += 2
            } else {
                result.append(unfolded[index])
                index += 1
            }
        }
        return changed ? result : nil
    }

    /// The most significant digits a number of an RRULE may have: no rule switchboard repeats needs more
    /// (``RecurrenceRule/validate(field:)``: an interval to 1000, a count to 5000).
    static let ruleNumberDigits = 4
    /// The most significant digits of a BYDAY ordinal (``RecurrenceRule`` takes ±53).
    static let ruleOrdinalDigits = 2

    /// Why an RRULE line's event is refused before libical reads it, or `nil` (also for any other
    /// line). libical keeps an INTERVAL or a BY* value in a 16-bit integer, a COUNT in 32 bits and a
    /// BYDAY ordinal in 8, and wraps what does not fit without a word: `INTERVAL=65543` became 7,
    /// `COUNT=4294967297` 1, `BYDAY=257MO` the first Monday. It refuses a BY* list longer than it
    /// keeps with no reason. Such a rule is refused here, where its text is still the file's, naming
    /// the part; one libical keeps whole is checked later with the reason naming its member.
    static func ruleRefusal(_ line: ArraySlice<UInt8>) -> String? {
        guard let first = line.first, upper(first) == UInt8(ascii: "R"), name(line) == "RRULE" else { return nil }
        let unfolded = Self.unfolded(line)
        guard let colon = valueStart(unfolded[...]) else { return nil }
        for part in unfolded[(colon + 1)...].split(separator: UInt8(ascii: ";")) {
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: part[..<equals].map(upper), as: UTF8.self)
            guard name == "INTERVAL" || name == "COUNT" || name.hasPrefix("BY") else { continue }
            let items = part[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            if let maximum = ruleListMaximum[name], items.count > maximum {
                return "its RRULE \(name) lists \(items.count) values, more than the \(maximum) a rule may have"
            }
            for item in items {
                let digits = significantDigits(item)
                if name == "BYDAY" {
                    // An ordinal, then the weekday: `-1SU`, `+2MO`.
                    if digits.count > ruleOrdinalDigits { return "its RRULE BYDAY ordinal is out of range" }
                } else if digits.count > ruleNumberDigits {
                    return "its RRULE \(name) is out of range"
                }
            }
        }
        return nil
    }

    /// The most values of each BY* list, by its RRULE name (``RecurrenceRule/maximumItems``).
    private static let ruleListMaximum: [String: Int] = {
        let names = ["byDay": "BYDAY", "byMonthDay": "BYMONTHDAY", "byMonth": "BYMONTH", "byYearDay": "BYYEARDAY", "byWeekNo": "BYWEEKNO",
                     "byHour": "BYHOUR", "byMinute": "BYMINUTE", "bySetPosition": "BYSETPOS"]
        return Dictionary(uniqueKeysWithValues: RecurrenceRule.maximumItems.compactMap { item in names[item.member].map { ($0, item.maximum) } })
    }()

    /// The digits of the number `item` starts with (after a sign and spaces), without leading zeros.
    private static func significantDigits(_ item: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var index = item.startIndex
        while index < item.endIndex, [0x20, 0x09, UInt8(ascii: "+"), UInt8(ascii: "-")].contains(item[index]) { index += 1 }
        while index < item.endIndex, item[index] == UInt8(ascii: "0") { index += 1 }
        var end = index
        while end < item.endIndex, (0x30...0x39).contains(item[end]) { end += 1 }
        return item[index..<end]
    }

    /// BEGIN or END and the component's name (upper case), or `nil` for any other line. As libical
    /// reads them, parameters may come between (`END;X-A=1:VEVENT`).
    private static func keyword(_ line: ArraySlice<UInt8>, folded: Bool) -> Keyword? {
        guard let first = line.first, first == 0x42 || first == 0x62 || first == 0x45 || first == 0x65 else { return nil }
        let text = folded ? unfolded(line)[...] : line
        let isBegin = upper(first) == 0x42
        let word: StaticString = isBegin ? "BEGIN" : "END"
        guard text.count > word.utf8CodeUnitCount else { return nil }
        var index = text.startIndex
        for byte in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard upper(text[index]) == byte else { return nil }
            index += 1
        }
        guard text[index] == 0x3A || text[index] == 0x3B, let colon = valueStart(text[index...]) else { return nil }
        index = colon + 1
        var end = text.endIndex
        while end > index, [0x20, 0x09, 0x0D, 0x0A].contains(text[end - 1]) { end -= 1 }
        while index < end, text[index] == 0x20 || text[index] == 0x09 { index += 1 }
        let name = String(decoding: text[index..<end].map(upper), as: UTF8.self)
        return isBegin ? .begin(name) : .end(name)
    }

    /// The property name a content line starts with, upper case.
    private static func name(_ line: ArraySlice<UInt8>) -> String? {
        guard let end = line.firstIndex(where: { $0 == 0x3B || $0 == 0x3A }) else { return nil }
        return String(decoding: line[..<end].map(upper), as: UTF8.self)
    }

    /// True when the value of `line` is a UTC offset as RFC 5545 writes one: `+` or `-`, then HHMM or HHMMSS.
    private static func isOffset(_ line: ArraySlice<UInt8>) -> Bool {
        let unfolded = Self.unfolded(line)
        guard let colon = valueStart(unfolded[...]) else { return false }
        let value = unfolded[(colon + 1)...]
        guard let sign = value.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
        let digits = value.dropFirst()
        return (digits.count == 4 || digits.count == 6) && digits.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// The index of the colon before the value: the first one outside a quoted parameter value.
    private static func valueStart(_ line: ArraySlice<UInt8>) -> Int? {
        var quoted = false
        for index in line.indices {
            if line[index] == 0x22 { quoted.toggle() } else if line[index] == 0x3A, !quoted { return index }
        }
        return nil
    }

    /// The line without its line ends and folds.
    private static func unfolded(_ line: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(line.count)
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if byte == 0x0D, index + 1 < line.endIndex, line[index + 1] == 0x0A {
                index += 1
                continue
            }
            if byte == 0x0A {
                index += 2  // the line end and the space or tab that folds
                continue
            }
            result.append(byte)
            index += 1
        }
        return result
    }

    private static func upper(_ byte: UInt8) -> UInt8 {
        byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
    }
}
