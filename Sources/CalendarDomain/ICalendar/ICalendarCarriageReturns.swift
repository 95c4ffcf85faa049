import CLibical

/// Carriage returns, which iCalendar text cannot hold: libical drops them from values and turns
/// them into spaces in parameters, so `Line one\r\nline two` would come back as `Line one\nline two`.
/// ``ICalendarWriter`` writes a text without them and their positions in a parameter
/// (X-SWITCHBOARD-CR on the property of a title, description or location, X-SWITCHBOARD-CN-CR for a
/// participant's name), from which ``ICalendarReader`` puts them back. Other calendars see the text
/// with plain line feeds.
enum ICalendarCarriageReturns {
    /// The parameter with the positions of a property value's carriage returns.
    static let valueParameter = "X-SWITCHBOARD-CR"
    /// The parameter with the positions of the carriage returns of a participant's name (CN).
    static let nameParameter = "X-SWITCHBOARD-CN-CR"

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

    /// A new property of `text` (made by `make`, without the carriage returns), marked with their positions.
    static func property(_ text: String, _ make: (UnsafePointer<CChar>) -> OpaquePointer?) -> OpaquePointer? {
        let (plain, positions) = split(text)
        guard let property = plain.withCString(make) else { return nil }
        if let positions { mark(property, valueParameter, positions) }
        return property
    }

    /// Adds the parameter `name` with `positions` to `property`.
    static func mark(_ property: OpaquePointer, _ name: String, _ positions: String) {
        guard let parameter = icalparameter_new_x(positions) else { return }
        icalparameter_set_xname(parameter, name)
        icalproperty_add_parameter(property, parameter)
    }

    /// `text` of `property` with the carriage returns its parameter `name` places put back.
    static func restore(_ text: String, of property: OpaquePointer, _ name: String) -> String {
        var parameter = icalproperty_get_first_parameter(property, ICAL_X_PARAMETER)
        while let current = parameter {
            if let xname = ICalendarReader.text(icalparameter_get_xname(current)), xname.uppercased() == name {
                return restore(text, positions: ICalendarReader.text(icalparameter_get_xvalue(current)) ?? "")
            }
            parameter = icalproperty_get_next_parameter(property, ICAL_X_PARAMETER)
        }
        return text
    }
}
