import CJansson

/// Reads the elements of one jansson array in order.
///
/// Three words, so that `any UnkeyedDecodingContainer` holds it inline rather than in a heap box.
struct JanssonUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: JanssonDecoderImpl
    let array: JSONView
    private let baseDepth: UInt32
    private var index: UInt32 = 0

    init(decoder: JanssonDecoderImpl, array: JSONView, base: Int) {
        self.decoder = decoder
        self.array = array
        self.baseDepth = UInt32(base)
    }

    private var base: Int { Int(baseDepth) }
    var codingPath: [any CodingKey] { Array(decoder.path.prefix(base)) }
    var count: Int? { json_array_size(array.pointer) }
    var currentIndex: Int { Int(index) }
    var isAtEnd: Bool { currentIndex >= json_array_size(array.pointer) }

    /// The element at `currentIndex`; `nil` past the end, which errors report as "nothing".
    private var current: JSONView? { json_array_get(array.pointer, currentIndex).map(JSONView.init) }

    private var currentKey: JanssonIndexKey { JanssonIndexKey(currentIndex) }

    /// Past the end counts as `null` too, so `decodeIfPresent` there gives `nil`.
    mutating func decodeNil() throws -> Bool {
        guard let found = current else { return true }
        guard found.isNull else { return false }
        index += 1
        return true
    }

    private mutating func scalar<S: JanssonScalar>(_ type: S.Type) throws(JSONFieldError) -> S {
        let value = try decoder.scalar(S.self, from: current, base: base, key: currentKey)
        index += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // Elements of arrays not read whole by `unbox` (`[Int16]`, `[Float]`) come through here: skip the
        // `Decodable` round trip.
        if let scalarType = janssonScalarType(T.self) {
            func read<S: JanssonScalar>(_: S.Type) throws -> T { unsafeBitCast(try scalar(S.self), to: T.self) }
            return try read(scalarType)
        }
        let value = try decoder.decode(T.self, from: current, base: base, key: currentKey)
        index += 1
        return value
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let found = current
        guard let found, found.kind == .object else {
            throw decoder.mismatch(found, base: base, key: currentKey, expected: "object")
        }
        let nested = decoder.subDecoder(for: found, at: codingPath + [currentKey])
        nested.tracker?.register(found, at: nested.path)
        index += 1
        return KeyedDecodingContainer(JanssonKeyedDecodingContainer<NestedKey>(decoder: nested, object: found, base: nested.path.count))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let found = current
        guard let found, found.kind == .array else {
            throw decoder.mismatch(found, base: base, key: currentKey, expected: "array")
        }
        let nested = decoder.subDecoder(for: found, at: codingPath + [currentKey])
        index += 1
        return JanssonUnkeyedDecodingContainer(decoder: nested, array: found, base: nested.path.count)
    }

    mutating func superDecoder() throws -> any Decoder {
        let sub = decoder.subDecoder(for: current, at: codingPath + [currentKey])
        index += 1
        return sub
    }
}
