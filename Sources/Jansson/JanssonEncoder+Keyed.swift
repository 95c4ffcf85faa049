import CJansson

/// Writes members into one jansson object, in the order they are encoded.
struct JanssonKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JanssonEncoderImpl
    /// Borrowed: the object belongs to the tree being built.
    let object: UnsafeMutablePointer<json_t>
    let base: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { Array(encoder.path.prefix(base)) + extra }

    /// Sets member `key`, taking over the reference `value` holds.
    private func set(_ value: UnsafeMutablePointer<json_t>, for key: some CodingKey) {
        withUTF8Pointer(key.stringValue) { _ = json_object_setn_new_nocheck(object, $0, $1, value) }
    }

    private func scalar<S: JanssonScalar>(_ value: S, forKey key: Key) throws {
        set(try encoder.make(value, base: base, extra: extra, key: key), for: key)
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
        if T.self == String.self { return try encode(unsafeBitCast(value, to: String.self), forKey: key) }
        if T.self == Int.self { return try encode(unsafeBitCast(value, to: Int.self), forKey: key) }
        set(try encoder.encodeChild(value, base: base, extra: extra, key: key), for: key)
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = json_object()!
        set(nested, for: key)
        return KeyedEncodingContainer(
            JanssonKeyedEncodingContainer<NestedKey>(encoder: encoder, object: nested, base: base, extra: extra + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = json_array()!
        set(nested, for: key)
        return JanssonUnkeyedEncodingContainer(encoder: encoder, array: nested, base: base, extra: extra + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(JanssonStringKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key) }

    /// Holds the member's place with `{}` (what a value that encodes nothing writes) until the encoder
    /// writes its value there.
    private func superEncoder(_ key: some CodingKey) -> any Encoder {
        set(json_object()!, for: key)
        let target = JanssonSuperTarget(parent: object, place: .member(key.stringValue))
        return JanssonEncoderImpl(path: codingPath + [key], userInfo: encoder.sendableUserInfo, target: target)
    }
}
