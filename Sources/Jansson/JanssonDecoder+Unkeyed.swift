import CJansson

/// Reads the elements of one jansson array in order.
struct JanssonUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: JanssonDecoderImpl
    let array: JSONView
    let base: Int
    let extra: [any CodingKey]
    let size: Int
    private(set) var currentIndex = 0

    init(decoder: JanssonDecoderImpl, array: JSONView, base: Int, extra: [any CodingKey]) {
        self.decoder = decoder
        self.array = array
        self.base = base
        self.extra = extra
        self.size = json_array_size(array.pointer)
    }

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(base)) + extra }
    var count: Int? { size }
    var isAtEnd: Bool { currentIndex >= size }

    /// The element at `currentIndex`; `nil` past the end, which errors report as "nothing".
    private var current: JSONView? {
        currentIndex < size ? JSONView(json_array_get(array.pointer, currentIndex)) : nil
    }

    private var currentKey: JanssonIndexKey { JanssonIndexKey(currentIndex) }

    /// Past the end counts as `null` too, so `decodeIfPresent` there gives `nil`.
    mutating func decodeNil() throws -> Bool {
        guard let found = current else { return true }
        guard found.isNull else { return false }
        currentIndex += 1
        return true
    }

    private mutating func scalar<S: JanssonScalar>(_ type: S.Type) throws(JSONFieldError) -> S {
        let found = current
        guard let found, let value = S.read(found) else {
            throw decoder.mismatch(found, base: base, extra: extra, key: currentKey, expected: S.expectation)
        }
        currentIndex += 1
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
        // `[Int]` and `[String]` decode their elements through here: skip the `Decodable` round trip.
        if T.self == Int.self { return unsafeBitCast(try scalar(Int.self), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try scalar(String.self), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try scalar(Int64.self), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try scalar(Double.self), to: T.self) }
        let value = try decoder.decode(T.self, from: current, base: base, extra: extra, key: currentKey)
        currentIndex += 1
        return value
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let found = current
        guard let found, found.kind == .object else {
            throw decoder.mismatch(found, base: base, extra: extra, key: currentKey, expected: "object")
        }
        let container = JanssonKeyedDecodingContainer<NestedKey>(
            decoder: decoder, object: found, base: base, extra: extra + [currentKey])
        currentIndex += 1
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let found = current
        guard let found, found.kind == .array else {
            throw decoder.mismatch(found, base: base, extra: extra, key: currentKey, expected: "array")
        }
        let container = JanssonUnkeyedDecodingContainer(decoder: decoder, array: found, base: base, extra: extra + [currentKey])
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let sub = JanssonDecoderImpl(
            value: current, root: decoder.root, path: codingPath + [currentKey], userInfo: decoder.sendableUserInfo)
        currentIndex += 1
        return sub
    }
}
