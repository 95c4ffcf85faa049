/// Reads the decoder's current value as one scalar, or hands it to another `Decodable` type.
struct JanssonSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: JanssonDecoderImpl
    let value: JSONView?
    let base: Int

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(base)) }

    /// Missing counts as `null`, so a missing `Optional` is `nil` even when decoded as a generic `T`.
    func decodeNil() -> Bool { value?.isNull ?? true }

    private func scalar<S: JanssonScalar>(_ type: S.Type) throws(JSONFieldError) -> S {
        try decoder.scalar(S.self, from: value, base: base, key: nil)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    func decode(_ type: String.Type) throws -> String { try scalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A `String` or `Int` enum's `init(from:)` decodes its raw value through here.
        if let scalarType = janssonScalarType(T.self) {
            func read<S: JanssonScalar>(_: S.Type) throws -> T { unsafeBitCast(try scalar(S.self), to: T.self) }
            return try read(scalarType)
        }
        return try decoder.decode(T.self, from: value, base: base, key: nil)
    }
}
