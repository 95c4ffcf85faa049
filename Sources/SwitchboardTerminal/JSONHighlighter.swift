import Jansson

/// Pretty-prints JSON for a person, two spaces per level, members in order; with `colour`, member names,
/// strings, numbers and literals each get an ANSI colour.
public struct JSONHighlighter: Sendable {
    public var colour: Bool

    public init(colour: Bool) { self.colour = colour }

    public func render(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        return out
    }

    /// `text` in the colour `code` (an SGR parameter such as "31" for red), or plain without colour.
    public func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    private func write(_ value: JSONValue, indent: Int, into out: inout String) {
        switch value {
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (position, (key, member)) in object.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                out += paint(JSONValue.string(key).jsonText(), "34") + ": "
                write(member, indent: indent + 1, into: &out)
                out += position < object.count - 1 ? ",\n" : "\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (position, item) in items.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                write(item, indent: indent + 1, into: &out)
                out += position < items.count - 1 ? ",\n" : "\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        case .string:
            out += paint(value.jsonText(), "32")
        case .integer, .double:
            out += paint(value.jsonText(), "33")
        case .bool, .null:
            out += paint(value.jsonText(), "35")
        case .object, .array:
            out += value.jsonText()
        }
    }
}
