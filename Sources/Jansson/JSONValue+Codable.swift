import CJansson

/// `JSONValue` works with any coder through containers; with ``JanssonDecoder`` and ``JanssonEncoder``
/// it is copied to and from the jansson value directly, keeping member order and integer-vs-real.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? JanssonDecoderImpl {
            guard let value = decoder.value else { throw decoder.mismatch(expected: "any JSON value") }
            self = JSONValue(value)
            return
        }
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let value = try? single.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? single.decode(Int64.self) {
                self = .integer(value)
                return
            }
            if let value = try? single.decode(Double.self) {
                self = .double(value)
                return
            }
            if let value = try? single.decode(String.self) {
                self = .string(value)
                return
            }
        }
        if let keyed = try? decoder.container(keyedBy: JanssonStringKey.self) {
            var object = JSONObject()
            for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key) }
            self = .object(object)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var elements: [JSONValue] = []
        if let count = unkeyed.count { elements.reserveCapacity(count) }
        while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSONValue.self)) }
        self = .array(elements)
    }

    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? JanssonEncoderImpl {
            encoder.setSlot(try makeCheckedJanssonPointer(path: encoder.path))
            return
        }
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .double(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .object(let object):
            var keyed = encoder.container(keyedBy: JanssonStringKey.self)
            for (key, value) in object { try keyed.encode(value, forKey: JanssonStringKey(key)) }
        }
    }

    /// Like `makeJanssonPointer()`, but a NaN or infinity throws `EncodingError.invalidValue` naming
    /// its path under `path`, where `makeJanssonPointer()` would write `null`.
    func makeCheckedJanssonPointer(path: [any CodingKey]) throws -> UnsafeMutablePointer<json_t> {
        do {
            return try makeChecked()
        } catch {
            throw JanssonEncoderImpl.invalid(
                error.value, reason: "Double \(error.value) cannot be written as JSON, which has no NaN or infinity",
                at: path + error.reversedKeys.reversed())
        }
    }

    /// Carries the path of a non-finite double out of ``makeChecked()``, collected on the way out so
    /// the way in costs nothing.
    private struct NonFinite: Error {
        var value: Double
        var reversedKeys: [any CodingKey] = []
    }

    private func makeChecked() throws(NonFinite) -> UnsafeMutablePointer<json_t> {
        switch self {
        case .null: return json_null()
        case .bool(let value): return value ? json_true() : json_false()
        case .integer(let value): return json_integer(json_int_t(value))
        case .double(let value):
            guard let real = json_real(value), value.isFinite else { throw NonFinite(value: value) }
            return real
        case .string(let value): return JanssonValue.makeString(value)
        case .array(let elements):
            let array = json_array()!
            for (index, element) in elements.enumerated() {
                do {
                    json_array_append_new(array, try element.makeChecked())
                } catch {
                    json_decref(array)
                    var error = error
                    error.reversedKeys.append(JanssonIndexKey(index))
                    throw error
                }
            }
            return array
        case .object(let object):
            let result = json_object()!
            for (key, value) in object {
                do {
                    let member = try value.makeChecked()
                    withUTF8Pointer(key) { _ = json_object_setn_new_nocheck(result, $0, $1, member) }
                } catch {
                    json_decref(result)
                    var error = error
                    error.reversedKeys.append(JanssonStringKey(key))
                    throw error
                }
            }
            return result
        }
    }
}
