import Jansson

/// A path to the parts of a message a replay does not compare: members by name, array elements by
/// index or all of them. `result.items[*].date`, `params.sentAt`, `error.data.debugId`, `result.*.state`.
///
/// Syntax: steps separated by `.`; a step is a member name (any characters but `.` and `[`) or `*` (every
/// member), followed by any number of `[N]` (element N) or `[*]` (every element). A leading `$.` is allowed.
public struct VolatilePath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Equatable {
        case member(String)
        case anyMember
        case element(Int)
        case anyElement
    }

    let steps: [Step]
    public let description: String

    /// Reads `text`; nil when it is not a path.
    public init?(_ text: String) {
        var body = Substring(text)
        if body.hasPrefix("$.") { body = body.dropFirst(2) }
        var steps: [Step] = []
        for part in body.split(separator: ".", omittingEmptySubsequences: false) {
            let name = part.prefix { $0 != "[" }
            if !name.isEmpty { steps.append(name == "*" ? .anyMember : .member(String(name))) }
            var rest = part.dropFirst(name.count)
            guard !name.isEmpty || !rest.isEmpty else { return nil }
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
                let index = rest[rest.index(after: rest.startIndex)..<close]
                if index == "*" {
                    steps.append(.anyElement)
                } else if let position = Int(index), position >= 0 {
                    steps.append(.element(position))
                } else {
                    return nil
                }
                rest = rest[rest.index(after: close)...]
            }
        }
        guard !steps.isEmpty else { return nil }
        self.steps = steps
        self.description = text
    }

    /// `value` with whatever this path reaches replaced by the string `"(volatile)"`.
    public func masking(_ value: JSONValue) -> JSONValue {
        Self.mask(value, steps[...])
    }

    private static func mask(_ value: JSONValue, _ steps: ArraySlice<Step>) -> JSONValue {
        guard let step = steps.first else { return "(volatile)" }
        let rest = steps.dropFirst()
        switch (step, value) {
        case (.member(let name), .object(var object)):
            guard let member = object[name] else { return value }
            object[name] = mask(member, rest)
            return .object(object)
        case (.anyMember, .object(let object)):
            var masked = JSONObject()
            for (key, member) in object { masked[key] = mask(member, rest) }
            return .object(masked)
        case (.element(let position), .array(var items)):
            guard items.indices.contains(position) else { return value }
            items[position] = mask(items[position], rest)
            return .array(items)
        case (.anyElement, .array(let items)):
            return .array(items.map { mask($0, rest) })
        default:
            return value
        }
    }
}
