import CJansson

/// A borrowed look at a jansson value: valid only while its owner (a ``JanssonValue``) is alive.
///
/// The view never changes the value or its reference count, so reading a parsed document costs no
/// allocation until a string is copied out.
public struct JSONView {
    /// The jansson value looked at.
    public let pointer: UnsafeMutablePointer<json_t>

    public init(_ pointer: UnsafeMutablePointer<json_t>) {
        self.pointer = pointer
    }

    /// The JSON type of the value.
    public var kind: JSONKind {
        switch sb_json_typeof(pointer) {
        case JSON_OBJECT: .object
        case JSON_ARRAY: .array
        case JSON_STRING: .string
        case JSON_INTEGER: .integer
        case JSON_REAL: .real
        case JSON_TRUE, JSON_FALSE: .bool
        default: .null
        }
    }

    public var isNull: Bool { kind == .null }

    /// The string, if the value is one (which may contain `\u{0}`).
    public var string: String? {
        guard kind == .string, let chars = json_string_value(pointer) else { return nil }
        let length = json_string_length(pointer)
        return chars.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The integer, if the value is a JSON integer (jansson keeps integers as 64-bit).
    public var int64: Int64? { kind == .integer ? Int64(json_integer_value(pointer)) : nil }

    /// The number as a double, for integers and reals.
    public var double: Double? {
        switch kind {
        case .real: json_real_value(pointer)
        case .integer: Double(json_integer_value(pointer))
        default: nil
        }
    }

    public var bool: Bool? {
        switch sb_json_typeof(pointer) {
        case JSON_TRUE: true
        case JSON_FALSE: false
        default: nil
        }
    }

    /// The member named `key` of an object; `nil` when absent or when this is not an object.
    public subscript(key: String) -> JSONView? {
        guard kind == .object else { return nil }
        return withUTF8Pointer(key) { json_object_getn(pointer, $0, $1) }.map(JSONView.init)
    }

    /// The number of elements of an array or members of an object; 0 otherwise.
    public var count: Int {
        switch kind {
        case .array: json_array_size(pointer)
        case .object: json_object_size(pointer)
        default: 0
        }
    }

    /// The element at `index` of an array.
    public subscript(index: Int) -> JSONView? {
        guard kind == .array, index >= 0, let element = json_array_get(pointer, index) else { return nil }
        return JSONView(element)
    }

    /// Calls `body` with each member of an object, in the order they were received.
    public func forEachMember(_ body: (_ key: String, _ value: JSONView) throws -> Void) rethrows {
        guard kind == .object else { return }
        var iterator = json_object_iter(pointer)
        while let current = iterator {
            let keyPointer = json_object_iter_key(current)!
            let keyLength = json_object_iter_key_len(current)
            let key = keyPointer.withMemoryRebound(to: UInt8.self, capacity: keyLength) {
                String(decoding: UnsafeBufferPointer(start: $0, count: keyLength), as: UTF8.self)
            }
            try body(key, JSONView(json_object_iter_value(current)))
            iterator = json_object_iter_next(pointer, current)
        }
    }

    /// The keys of an object in the order they were received.
    public var keys: [String] {
        var keys: [String] = []
        keys.reserveCapacity(count)
        forEachMember { key, _ in keys.append(key) }
        return keys
    }

    /// The greatest depth of nested arrays and objects, stopping once it passes `limit`.
    /// A scalar has depth 0, `[]` has depth 1.
    public func nestingDepth(stoppingAfter limit: Int) -> Int {
        switch kind {
        case .array:
            guard limit > 0 else { return 1 }
            var deepest = 0
            for index in 0..<count {
                deepest = max(deepest, JSONView(json_array_get(pointer, index)).nestingDepth(stoppingAfter: limit - 1))
                if deepest >= limit { break }
            }
            return deepest + 1
        case .object:
            guard limit > 0 else { return 1 }
            var deepest = 0
            var iterator = json_object_iter(pointer)
            while let current = iterator, deepest < limit {
                deepest = max(deepest, JSONView(json_object_iter_value(current)).nestingDepth(stoppingAfter: limit - 1))
                iterator = json_object_iter_next(pointer, current)
            }
            return deepest + 1
        default:
            return 0
        }
    }

    /// Compact JSON text of this value, at most `limit` characters (longer text ends in `…`); for error messages.
    public func preview(limit: Int = 80) -> String {
        let text = String(decoding: JSONWriter.bytes(of: self), as: UTF8.self)
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }
}

/// The kinds of JSON value.
public enum JSONKind: String, Sendable {
    case object, array, string, integer, real, bool, null

    /// How a JSON type is named in error messages.
    public var description: String {
        switch self {
        case .integer: "integer"
        case .real: "number"
        case .bool: "boolean"
        default: rawValue
        }
    }
}
