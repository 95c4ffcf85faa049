import CJansson

extension JSONValue {
    /// Copies a jansson value into Swift.
    public init(_ view: JSONView) {
        switch view.kind {
        case .null: self = .null
        case .bool: self = .bool(view.bool!)
        case .integer: self = .integer(view.int64!)
        case .real: self = .double(json_real_value(view.pointer))
        case .string:
            // A raw value (a JSONTextEncodable's text, an exact id) stands for the JSON it holds.
            if let raw = RawNumber.text(of: view), let parsed = try? JSONParser.parse(raw) {
                self = JSONValue(parsed.view)
            } else {
                self = .string(view.string!)
            }
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(view.count)
            for index in 0..<view.count { elements.append(JSONValue(view[index]!)) }
            self = .array(elements)
        case .object:
            var object = JSONObject()
            view.forEachMember { key, value in object[key] = JSONValue(value) }
            self = .object(object)
        }
    }

    /// Parses JSON text into a Swift value.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses JSON bytes into a Swift value.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        let document = try JSONParser.parse(bytes)
        self = withExtendedLifetime(document) { JSONValue(document.view) }
    }

    /// Builds the jansson value and returns a new reference to it. Non-finite doubles, which JSON
    /// cannot carry, become `null`.
    public func makeJanssonPointer() -> UnsafeMutablePointer<json_t> {
        switch self {
        case .null: return json_null()
        case .bool(let value): return value ? json_true() : json_false()
        case .integer(let value): return json_integer(json_int_t(value))
        case .double(let value): return json_real(value) ?? json_null()
        case .string(let value): return JanssonValue.makeString(value)
        case .array(let elements):
            let array = json_array()!
            for element in elements { json_array_append_new(array, element.makeJanssonPointer()) }
            return array
        case .object(let object):
            let result = json_object()!
            for (key, value) in object {
                withUTF8Pointer(key) { _ = json_object_setn_new_nocheck(result, $0, $1, value.makeJanssonPointer()) }
            }
            return result
        }
    }

    /// The value as an owned jansson value.
    public func makeJansson() -> JanssonValue { JanssonValue(taking: makeJanssonPointer()) }

    /// Compact (or indented) JSON text, written by jansson.
    public func jsonText(pretty: Bool = false) -> String {
        let document = makeJansson()
        return withExtendedLifetime(document) { JSONWriter.string(of: document.view, pretty: pretty) }
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonText() }
}
