import CLibical

/// Carriage returns, which iCalendar text cannot hold: libical drops them from values, so
/// `Line one\r\nline two` would come back as `Line one\nline two`. ``ICalendarWriter`` writes a text
/// without them and their positions in X-SWITCHBOARD-CR on the property (of a title, description or
/// location), from which ``ICalendarReader`` puts them back. Other calendars see the text with plain
/// line feeds. libical also trims the spaces and tabs at a value's ends: they go in X-SWITCHBOARD-ENDS.
/// (A participant's name, a parameter, has its own way: ``exactName(_:)``.)
enum ICalendarCarriageReturns {
    /// The parameter with the positions of a property value's carriage returns.
    static let valueParameter = "X-SWITCHBOARD-CR"
    /// The parameter with the spaces and tabs that begin and end a property value, which libical trims
    /// when it reads it: `s` a space, `t` a tab, the two ends apart by a comma (`ss,t`). A value of
    /// spaces and tabs alone, which libical would read as no value and drop with the property, is
    /// written as ``blankValue`` with its letters and no comma (`sts`); one of carriage returns alone
    /// as ``blankValue`` with ends `-`.
    static let endsParameter = "X-SWITCHBOARD-ENDS"
    static let blankValue = "-"
    /// The parameter with a participant's exact name, percent-encoded, where CN cannot hold it.
    static let nameParameter = "X-SWITCHBOARD-CN"

    /// `name` percent-encoded when CN might not give it back: libical writes control characters as
    /// spaces, reads `^^` (as U+001E), `^n` and `^'` as RFC 6868 escapes it never wrote, and trims
    /// spaces at the end.
    static func exactName(_ name: String) -> String? {
        guard name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x5E }) || name.last == " " else { return nil }
        var result = ""
        for byte in name.utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x2E || byte == 0x5F {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// The name ``exactName(_:)`` encoded, or `nil` when `encoded` is no such text.
    static func name(decoding encoded: String) -> String? {
        var bytes: [UInt8] = [], iterator = encoded.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x25 else { bytes.append(byte); continue }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `text` without its carriage returns, and their positions (Unicode scalars from 0, ascending,
    /// comma-separated); `nil` positions when it has none.
    static func split(_ text: String) -> (text: String, positions: String?) {
        guard text.utf8.contains(0x0D) else { return (text, nil) }
        var plain = String.UnicodeScalarView(), positions: [String] = []
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if scalar == "\r" { positions.append(String(index)) } else { plain.append(scalar) }
        }
        return (String(plain), positions.joined(separator: ","))
    }

    /// `text` with carriage returns put back at `positions`; unchanged when they are not positions
    /// ``split(_:)`` could have written for it.
    static func restore(_ text: String, positions: String) -> String {
        var marks: [Int] = []
        for item in positions.split(separator: ",", omittingEmptySubsequences: false) {
            guard let position = Int(item), position >= 0, position > marks.last ?? -1 else { return text }
            marks.append(position)
        }
        let scalars = Array(text.unicodeScalars)
        guard let last = marks.last, last < scalars.count + marks.count else { return text }
        var result = String.UnicodeScalarView(), next = 0, source = 0
        for index in 0..<(scalars.count + marks.count) {
            if next < marks.count, marks[next] == index {
                result.append("\r")
                next += 1
            } else {
                result.append(scalars[source])
                source += 1
            }
        }
        return String(result)
    }

    /// A new property of `text` (made by `make`, without the carriage returns), marked with their
    /// positions and with the spaces and tabs at its ends.
    static func property(_ text: String, _ make: (UnsafePointer<CChar>) -> OpaquePointer?) -> OpaquePointer? {
        let (plain, positions) = split(text)
        // Carriage returns alone leave no value: written as the blank value too, its ends `-`.
        let ends = plain.isEmpty ? (positions == nil ? nil : blankValue) : ends(of: plain)
        let blank = ends.map { !$0.contains(",") } ?? false
        guard let property = (blank ? blankValue : plain).withCString(make) else { return nil }
        if let positions { mark(property, valueParameter, positions) }
        if let ends { mark(property, endsParameter, ends) }
        return property
    }

    /// The spaces and tabs at the ends of `text` as ``endsParameter`` writes them, `nil` when there are none.
    static func ends(of text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        let lead = scalars.prefix { $0 == " " || $0 == "\t" }
        let trail = scalars.dropFirst(lead.count).reversed().prefix { $0 == " " || $0 == "\t" }.reversed()
        guard !lead.isEmpty || !trail.isEmpty else { return nil }
        let letters = { (run: [Unicode.Scalar]) in String(run.map { $0 == " " ? "s" : "t" }) }
        return lead.count == scalars.count ? letters(Array(lead)) : letters(Array(lead)) + "," + letters(Array(trail))
    }

    /// `trimmed` (a value libical read) with the ends ``ends(of:)`` wrote put back; unchanged when
    /// `ends` is no such text or the value was not trimmed.
    static func restore(_ trimmed: String, ends: String) -> String {
        if ends == blankValue { return trimmed == blankValue ? "" : trimmed }
        let parts = ends.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ $0.allSatisfy { $0 == "s" || $0 == "t" } }) else { return trimmed }
        let spaces = { (letters: Substring) in String(letters.map { $0 == "s" ? " " : "\t" }) }
        if parts.count == 1, trimmed == blankValue { return spaces(parts[0]) }
        guard parts.count == 2,
              trimmed.first.map({ $0 != " " && $0 != "\t" }) ?? true, trimmed.last.map({ $0 != " " && $0 != "\t" }) ?? true else {
            return trimmed
        }
        return spaces(parts[0]) + trimmed + spaces(parts[1])
    }

    /// Adds the parameter `name` with `positions` to `property`.
    static func mark(_ property: OpaquePointer, _ name: String, _ positions: String) {
        guard let parameter = icalparameter_new_x(positions) else { return }
        icalparameter_set_xname(parameter, name)
        icalproperty_add_parameter(property, parameter)
    }

    /// `text` of `property` with the spaces and tabs of its X-SWITCHBOARD-ENDS and the carriage returns
    /// its X-SWITCHBOARD-CR places put back.
    static func restore(_ text: String, of property: OpaquePointer) -> String {
        let whole = parameter(endsParameter, of: property).map { restore(text, ends: $0) } ?? text
        return parameter(valueParameter, of: property).map { restore(whole, positions: $0) } ?? whole
    }

    /// The value of `property`'s X parameter `name`.
    static func parameter(_ name: String, of property: OpaquePointer) -> String? {
        var parameter = icalproperty_get_first_parameter(property, ICAL_X_PARAMETER)
        while let current = parameter {
            if let xname = ICalendarReader.text(icalparameter_get_xname(current)), xname.uppercased() == name {
                return ICalendarReader.text(icalparameter_get_xvalue(current)) ?? ""
            }
            parameter = icalproperty_get_next_parameter(property, ICAL_X_PARAMETER)
        }
        return nil
    }
}
