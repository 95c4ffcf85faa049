import CJansson

/// Reads the members of one jansson object; members it is not asked about are ignored, or refused
/// after decoding when the decoder tracks them (``JanssonMemberTracker``).
///
/// The work happens in the decoder, which is not generic: this container is made for keys known only at
/// run time, so its own code runs unspecialized, and every generic call in it would cost metadata lookups.
struct JanssonKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JanssonDecoderImpl
    let object: JSONView
    /// The depth of the decoder's path when this container was made.
    let base: Int

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(base)) }

    /// Asking for every key opens the object: whatever it holds is read (a dictionary).
    var allKeys: [Key] {
        decoder.tracker?.markOpen(object)
        var keys: [Key] = []
        keys.reserveCapacity(object.count)
        object.forEachMember { name, _ in
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    private func member(_ key: Key) -> JSONView? { decoder.member(key.stringValue, of: object) }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    /// Missing counts as `null`.
    func decodeNil(forKey key: Key) throws -> Bool { member(key)?.isNull ?? true }

    // The concrete overloads call the decoder directly, so the calls are specialized for their type.

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.scalar(type, named: key.stringValue, of: object, base: base, key: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let scalarType = janssonScalarType(T.self) {
            func read<S: JanssonScalar>(_: S.Type) throws -> T {
                unsafeBitCast(try decoder.scalar(S.self, from: member(key), base: base, key: key), to: T.self)
            }
            return try read(scalarType)
        }
        return try decoder.decode(T.self, from: member(key), base: base, key: key)
    }

    // One lookup instead of the default's three (contains, decodeNil, decode).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decoder.scalarIfPresent(type, named: key.stringValue, of: object, base: base, key: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let found = member(key), !found.isNull else { return nil }
        return try decode(T.self, from: found, forKey: key)
    }

    private func decode<T: Decodable>(_ type: T.Type, from found: JSONView, forKey key: Key) throws -> T {
        if let scalarType = janssonScalarType(T.self) {
            func read<S: JanssonScalar>(_: S.Type) throws -> T {
                unsafeBitCast(try decoder.scalar(S.self, from: found, base: base, key: key), to: T.self)
            }
            return try read(scalarType)
        }
        return try decoder.decode(T.self, from: found, base: base, key: key)
    }

    // MARK: Nesting

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let found = member(key)
        guard let found, found.kind == .object else {
            throw decoder.mismatch(found, base: base, key: key, expected: "object")
        }
        let nested = decoder.subDecoder(for: found, at: codingPath + [key])
        nested.tracker?.register(found, at: nested.path)
        return KeyedDecodingContainer(JanssonKeyedDecodingContainer<NestedKey>(decoder: nested, object: found, base: nested.path.count))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let found = member(key)
        guard let found, found.kind == .array else {
            throw decoder.mismatch(found, base: base, key: key, expected: "array")
        }
        let nested = decoder.subDecoder(for: found, at: codingPath + [key])
        return JanssonUnkeyedDecodingContainer(decoder: nested, array: found, base: nested.path.count)
    }

    func superDecoder() throws -> any Decoder {
        decoder.subDecoder(for: decoder.member("super", of: object), at: codingPath + [JanssonStringKey.super])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.subDecoder(for: member(key), at: codingPath + [key])
    }
}
