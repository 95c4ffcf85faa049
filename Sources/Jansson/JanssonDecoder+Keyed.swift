import CJansson

/// Reads the members of one jansson object; members it is not asked about are ignored.
struct JanssonKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JanssonDecoderImpl
    let object: JSONView
    /// The depth of the decoder's path when this container was made; `extra` follows it for nested containers.
    let base: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(base)) + extra }

    var allKeys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(object.count)
        object.forEachMember { name, _ in
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    private func member(_ key: Key) -> JSONView? { member(key.stringValue) }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    /// Missing counts as `null`.
    func decodeNil(forKey key: Key) throws -> Bool { member(key)?.isNull ?? true }

    private func scalar<S: JanssonScalar>(_ type: S.Type, forKey key: Key) throws(JSONFieldError) -> S {
        let found = member(key)
        if let found, let value = S.read(found) { return value }
        throw decoder.mismatch(found, base: base, extra: extra, key: key, expected: S.expectation)
    }

    private func scalarIfPresent<S: JanssonScalar>(_ type: S.Type, forKey key: Key) throws(JSONFieldError) -> S? {
        guard let found = member(key), !found.isNull else { return nil }
        if let value = S.read(found) { return value }
        throw decoder.mismatch(found, base: base, extra: extra, key: key, expected: S.expectation)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if T.self == String.self { return unsafeBitCast(try scalar(String.self, forKey: key), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try scalar(Int.self, forKey: key), to: T.self) }
        return try decoder.decode(T.self, from: member(key), base: base, extra: extra, key: key)
    }

    // One lookup instead of the default's three (contains, decodeNil, decode).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try scalarIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(type, forKey: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let found = member(key), !found.isNull else { return nil }
        return try decoder.decode(T.self, from: found, base: base, extra: extra, key: key)
    }

    // MARK: Nesting

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let found = member(key)
        guard let found, found.kind == .object else {
            throw decoder.mismatch(found, base: base, extra: extra, key: key, expected: "object")
        }
        return KeyedDecodingContainer(
            JanssonKeyedDecodingContainer<NestedKey>(decoder: decoder, object: found, base: base, extra: extra + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let found = member(key)
        guard let found, found.kind == .array else {
            throw decoder.mismatch(found, base: base, extra: extra, key: key, expected: "array")
        }
        return JanssonUnkeyedDecodingContainer(decoder: decoder, array: found, base: base, extra: extra + [key])
    }

    func superDecoder() throws -> any Decoder { subDecoder(JanssonStringKey.super, member(JanssonStringKey.super.stringValue)) }

    func superDecoder(forKey key: Key) throws -> any Decoder { subDecoder(key, member(key)) }

    private func member(_ name: String) -> JSONView? {
        withUTF8Pointer(name) { json_object_getn(object.pointer, $0, $1) }.map(JSONView.init)
    }

    private func subDecoder(_ key: any CodingKey, _ value: JSONView?) -> any Decoder {
        JanssonDecoderImpl(value: value, root: decoder.root, path: codingPath + [key], userInfo: decoder.sendableUserInfo)
    }
}
