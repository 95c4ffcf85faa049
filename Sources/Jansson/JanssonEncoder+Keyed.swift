import CJansson

/// Writes members into one jansson object, in the order they are encoded.
struct JanssonKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JanssonEncoderImpl
    /// Borrowed: the object belongs to the tree being built.
    let object: UnsafeMutablePointer<json_t>
    let base: Int

    var codingPath: [any CodingKey] { Array(encoder.path.prefix(base)) }

    /// Sets member `key`, taking over the reference `value` holds.
    private func set(_ value: UnsafeMutablePointer<json_t>, for key: Key) {
        JanssonEncoderImpl.set(value, named: key.stringValue, in: object)
    }

    private func scalar<S: JanssonScalar>(_ value: S, forKey key: Key) throws {
        set(try encoder.make(value, base: base, key: key), for: key)
    }

    mutating func encodeNil(forKey key: Key) throws { set(json_null(), for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(value ? json_true() : json_false(), for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(JanssonValue.makeString(value), for: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try scalar(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try scalar(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try scalar(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(json_integer(json_int_t(value)), for: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try scalar(value, forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let scalarType = janssonScalarType(T.self) {
            return set(try encoder.make(value, as: scalarType, base: base, key: key), for: key)
        }
        set(try encoder.encodeChild(value, base: base, key: key), for: key)
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = json_object()!
        set(nested, for: key)
        let sub = encoder.subEncoder(at: codingPath + [key])
        return KeyedEncodingContainer(JanssonKeyedEncodingContainer<NestedKey>(encoder: sub, object: nested, base: sub.path.count))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = json_array()!
        set(nested, for: key)
        let sub = encoder.subEncoder(at: codingPath + [key])
        return JanssonUnkeyedEncodingContainer(encoder: sub, array: nested, base: sub.path.count)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(JanssonStringKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key) }

    /// Holds the member's place with `{}` (what a value that encodes nothing writes) until the encoder
    /// writes its value there.
    private func superEncoder(_ key: any CodingKey) -> any Encoder {
        JanssonEncoderImpl.set(json_object()!, named: key.stringValue, in: object)
        let target = JanssonSuperTarget(parent: object, place: .member(key.stringValue))
        return encoder.subEncoder(at: codingPath + [key], target: target)
    }
}
