import CJansson

/// Appends elements to one jansson array.
struct JanssonUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: JanssonEncoderImpl
    /// Borrowed: the array belongs to the tree being built.
    let array: UnsafeMutablePointer<json_t>
    let base: Int

    var codingPath: [any CodingKey] { Array(encoder.path.prefix(base)) }
    var count: Int { json_array_size(array) }

    private var nextKey: JanssonIndexKey { JanssonIndexKey(count) }

    /// Appends, taking over the reference `value` holds.
    private func append(_ value: UnsafeMutablePointer<json_t>) {
        _ = json_array_append_new(array, value)
    }

    private func scalar<S: JanssonScalar>(_ value: S) throws {
        append(try encoder.make(value, base: base, key: nextKey))
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
        // Elements of arrays not written whole by `encodeChild` (a top-level `[Int]`, `[Int16]`) come
        // through here: skip the `Encodable` round trip.
        if let scalarType = janssonScalarType(T.self) {
            return append(try encoder.make(value, as: scalarType, base: base, key: nextKey))
        }
        append(try encoder.encodeChild(value, base: base, key: nextKey))
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let sub = encoder.subEncoder(at: codingPath + [nextKey])
        let nested = json_object()!
        append(nested)
        return KeyedEncodingContainer(JanssonKeyedEncodingContainer<NestedKey>(encoder: sub, object: nested, base: sub.path.count))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let sub = encoder.subEncoder(at: codingPath + [nextKey])
        let nested = json_array()!
        append(nested)
        return JanssonUnkeyedEncodingContainer(encoder: sub, array: nested, base: sub.path.count)
    }

    /// Holds the element's place with `{}` until the encoder writes its value there.
    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        append(json_object()!)
        let target = JanssonSuperTarget(parent: array, place: .element(key.index))
        return encoder.subEncoder(at: codingPath + [key], target: target)
    }
}
