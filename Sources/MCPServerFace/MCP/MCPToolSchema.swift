import Jansson

/// A method's OpenRPC description as MCP tool schemas: `inputSchema` is an object schema of its
/// by-name params, `outputSchema` its result schema when that is an object. References to shared
/// schemas (`#/components/schemas/X`) become `#/$defs/X`, and each schema carries the `$defs` it
/// needs, so it stands alone as MCP asks.
struct MCPToolSchema {
    let components: JSONObject

    private static let componentPrefix = "#/components/schemas/"

    /// `{type: object, properties, required, additionalProperties: false}` from the params (`_meta`,
    /// which MCP carries beside the arguments, left out).
    func input(of method: JSONValue) -> JSONValue {
        var properties = JSONObject()
        var required: [JSONValue] = []
        for param in method["params"]?.arrayValue ?? [] {
            guard let name = param["name"]?.stringValue, name != "_meta" else { continue }
            properties[name] = param["schema"] ?? [:]
            if param["required"]?.boolValue == true { required.append(.string(name)) }
        }
        var schema: JSONObject = ["type": "object", "properties": .object(properties)]
        if !required.isEmpty { schema["required"] = .array(required) }
        if method["x-additionalParams"]?.boolValue == false { schema["additionalProperties"] = false }
        return standalone(.object(schema))
    }

    /// The result schema when it describes an object (directly or through one reference), else nil.
    func output(of method: JSONValue) -> JSONValue? {
        guard var schema = method["result"]?["schema"] else { return nil }
        if let reference = schema["$ref"]?.stringValue, reference.hasPrefix(Self.componentPrefix),
           let component = components[String(reference.dropFirst(Self.componentPrefix.count))] {
            schema = component
        }
        guard schema["type"]?.stringValue == "object" else { return nil }
        return standalone(schema)
    }

    /// `schema` with its references rewritten and the components they reach under `$defs`.
    private func standalone(_ schema: JSONValue) -> JSONValue {
        var needed = Set<String>()
        var pending = Self.references(in: schema)
        while let name = pending.popLast() {
            guard needed.insert(name).inserted, let component = components[name] else { continue }
            pending += Self.references(in: component)
        }
        guard case .object(var object) = Self.rewritten(schema) else { return schema }
        if !needed.isEmpty {
            var defs = JSONObject()
            for name in needed.sorted() { defs[name] = components[name].map(Self.rewritten) ?? [:] }
            object["$defs"] = .object(defs)
        }
        return .object(object)
    }

    /// The component names `value` refers to.
    private static func references(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            var names: [String] = []
            for (key, member) in object {
                if key == "$ref", let reference = member.stringValue, reference.hasPrefix(componentPrefix) {
                    names.append(String(reference.dropFirst(componentPrefix.count)))
                } else {
                    names += references(in: member)
                }
            }
            return names
        case .array(let items):
            return items.flatMap(references(in:))
        default:
            return []
        }
    }

    /// `value` with `#/components/schemas/X` written `#/$defs/X`.
    private static func rewritten(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var copy = JSONObject()
            for (key, member) in object {
                if key == "$ref", let reference = member.stringValue, reference.hasPrefix(componentPrefix) {
                    copy[key] = .string("#/$defs/" + reference.dropFirst(componentPrefix.count))
                } else {
                    copy[key] = rewritten(member)
                }
            }
            return .object(copy)
        case .array(let items):
            return .array(items.map(rewritten))
        default:
            return value
        }
    }
}
