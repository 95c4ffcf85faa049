import Jansson

/// A schema's references into its own `$defs` (or draft-07 `definitions`) replaced by what they name, so
/// the schema, or one of its parts, can stand inside another document, where `#` no longer means it: a
/// plugin tool's `outputSchema` as an OpenRPC method's result, each `inputSchema` property as a param
/// (pydantic writes `{"$ref": "#/$defs/TimeResult"}` for every nested model).
///
/// ```swift
/// var references = LocalReferences(root: outputSchema)
/// let result = references.inlinedRoot()   // no "#/$defs/…" left, and no $defs
/// ```
///
/// - Important: bounded. A reference met again inside its own expansion (a recursive definition), more than
///   ``maximumDepth`` expansions deep, or once ``nodeBudget`` values have been written out, becomes `{}` (any
///   value): looser than the plugin's schema, never refusing a value it accepts. The plugin still checks its
///   own arguments, and the host checks them against the original first.
public struct LocalReferences {
    public static let maximumDepth = 32
    public static let nodeBudget = 100_000

    private let root: JSONValue
    private var remaining = Self.nodeBudget

    public init(root: JSONValue) {
        self.root = root
    }

    /// The root with every local reference replaced, and without its `$defs` and `definitions`, which
    /// nothing refers to any more.
    public mutating func inlinedRoot() -> JSONValue {
        guard case .object(var object) = root else { return root }
        object["$defs"] = nil
        object["definitions"] = nil
        return inline(.object(object), expanding: [])
    }

    /// A part of the root (an `inputSchema` property's schema) with every local reference replaced. A
    /// reference to a definition that does not exist stays as it is.
    public mutating func inlined(_ part: JSONValue) -> JSONValue {
        inline(part, expanding: [])
    }

    private mutating func inline(_ value: JSONValue, expanding: [String]) -> JSONValue {
        remaining -= 1
        switch value {
        case .array(let items):
            return .array(items.map { inline($0, expanding: expanding) })
        case .object(let object):
            if let reference = object["$ref"]?.stringValue, let target = definition(named: reference) {
                var siblings = object
                siblings["$ref"] = nil
                let expanded: JSONValue
                if expanding.contains(reference) || expanding.count >= Self.maximumDepth || remaining <= 0 {
                    expanded = [:]
                } else {
                    expanded = inline(target, expanding: expanding + [reference])
                }
                guard !siblings.isEmpty else { return expanded }
                // 2020-12 applies a $ref beside other keywords as one more constraint: both must hold.
                return ["allOf": [expanded, inline(.object(siblings), expanding: expanding)]]
            }
            var copy = JSONObject()
            for (key, member) in object { copy[key] = inline(member, expanding: expanding) }
            return .object(copy)
        default:
            return value
        }
    }

    /// The definition `#/$defs/NAME` or `#/definitions/NAME` names (JSON Pointer's `~1` and `~0` decoded).
    private func definition(named reference: String) -> JSONValue? {
        for (prefix, member) in [("#/$defs/", "$defs"), ("#/definitions/", "definitions")] where reference.hasPrefix(prefix) {
            let name = reference.dropFirst(prefix.count).replacing("~1", with: "/").replacing("~0", with: "~")
            return root[member]?[String(name)]
        }
        return nil
    }
}
