import CJansson

/// Appends elements to one jansson array.
struct JanssonUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: JanssonEncoderImpl
    /// Borrowed: the array belongs to the tree being built.
    let array: UnsafeMutablePointer<json_t>
    let base: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { Array(encoder.path.prefix(base)) + extra }
    var count: Int { json_array_size(array) }

    private var nextKey: JanssonIndexKey { JanssonIndexKey(count) }

    /// Appends, taking over the reference `value` holds.
    private func append(_ value: UnsafeMutablePointer<json_t>) {
        _ = json_array_append_new(array, value)
    }

    private func scalar<S: JanssonScalar>(_ value: S) throws {
        append(try encoder.make(value, base: base, extra: extra, key: nextKey))
    }

    mutating func encodeNil() throws { append(json_null()) }
    mutating func encode(_ value: Bool) throws { append(value ? json_true() : json_false()) }
    mutating func encode(_ value: String) throws { append(JanssonValue.makeString(value)) }
    mutating func encode(_ value: Double) throws { try scalar(value) }
    mutating func encode(_ value: Float) throws { try scalar(value) }
    mutating func encode(_ value: Int) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: Int8) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: Int16) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: Int32) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: Int64) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: UInt) throws { try scalar(value) }
    mutating func encode(_ value: UInt8) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: UInt16) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: UInt32) throws { append(json_integer(json_int_t(value))) }
    mutating func encode(_ value: UInt64) throws { try scalar(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        // `[Int]`, `[String]` and `[Double]` encode their elements through here.
        if T.self == Int.self { return try encode(unsafeBitCast(value, to: Int.self)) }
        if T.self == String.self { return try encode(unsafeBitCast(value, to: String.self)) }
        if T.self == Int64.self { return try encode(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Double.self { return try encode(unsafeBitCast(value, to: Double.self)) }
        append(try encoder.encodeChild(value, base: base, extra: extra, key: nextKey))
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        let nested = json_object()!
        append(nested)
        return KeyedEncodingContainer(
            JanssonKeyedEncodingContainer<NestedKey>(encoder: encoder, object: nested, base: base, extra: extra + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let nested = json_array()!
        append(nested)
        return JanssonUnkeyedEncodingContainer(encoder: encoder, array: nested, base: base, extra: extra + [key])
    }

    /// Holds the element's place with `{}` until the encoder writes its value there.
    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        append(json_object()!)
        let target = JanssonSuperTarget(parent: array, place: .element(key.index))
        return JanssonEncoderImpl(path: codingPath + [key], userInfo: encoder.sendableUserInfo, target: target)
    }
}
