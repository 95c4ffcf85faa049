/// A URI template of RFC 6570's simplest level (`weather://forecast/{date}`): literal text and
/// `{name}` variables, each matching one or more characters other than `/`, `?` and `#`.
public struct URITemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case variable(String)
    }

    let text: String
    let parts: [Part]

    public init(_ text: String) {
        self.text = text
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { parts.append(.literal(String(rest[..<open]))) }
            parts.append(.variable(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.literal(String(rest))) }
        self.parts = parts
    }

    /// The variables' values when `uri` matches, else nil.
    public func match(_ uri: String) -> [String: String]? {
        var values: [String: String] = [:]
        var rest = Substring(uri)
        for (index, part) in parts.enumerated() {
            switch part {
            case .literal(let literal):
                guard rest.hasPrefix(literal) else { return nil }
                rest = rest.dropFirst(literal.count)
            case .variable(let name):
                // Up to the next literal (or a separator), at least one character.
                let stop: String? = if index + 1 < parts.count, case .literal(let next) = parts[index + 1] { next } else { nil }
                var end = rest.startIndex
                while end < rest.endIndex, !"/?#".contains(rest[end]), !(stop.map { rest[end...].hasPrefix($0) } ?? false) {
                    end = rest.index(after: end)
                }
                guard end > rest.startIndex else { return nil }
                values[name] = String(rest[..<end])
                rest = rest[end...]
            }
        }
        return rest.isEmpty ? values : nil
    }
}
