import CJansson

/// Sets the value of the encoder's current level: a scalar, `null`, or whatever another `Encodable` makes.
struct JanssonSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: JanssonEncoderImpl
    let base: Int

    var codingPath: [any CodingKey] { Array(encoder.path.prefix(base)) }

    private func scalar<S: JanssonScalar>(_ value: S) throws {
        encoder.setSlot(try encoder.make(value, base: base, key: nil))
    }

    mutating func encodeNil() throws { encoder.setSlot(json_null()) }
    mutating func encode(_ value: Bool) throws { try scalar(value) }
    mutating func encode(_ value: String) throws { try scalar(value) }
    mutating func encode(_ value: Double) throws { try scalar(value) }
    mutating func encode(_ value: Float) throws { try scalar(value) }
    mutating func encode(_ value: Int) throws { try scalar(value) }
    mutating func encode(_ value: Int8) throws { try scalar(value) }
    mutating func encode(_ value: Int16) throws { try scalar(value) }
    mutating func encode(_ value: Int32) throws { try scalar(value) }
    mutating func encode(_ value: Int64) throws { try scalar(value) }
    mutating func encode(_ value: UInt) throws { try scalar(value) }
    mutating func encode(_ value: UInt8) throws { try scalar(value) }
    mutating func encode(_ value: UInt16) throws { try scalar(value) }
    mutating func encode(_ value: UInt32) throws { try scalar(value) }
    mutating func encode(_ value: UInt64) throws { try scalar(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        // A `String` or `Int` enum's `encode(to:)` encodes its raw value through here.
        if let scalarType = janssonScalarType(T.self) {
            return encoder.setSlot(try encoder.make(value, as: scalarType, base: base, key: nil))
        }
        encoder.setSlot(try encoder.encodeChild(value, base: base, key: nil))
    }
}
