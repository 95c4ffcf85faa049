import CJansson

/// A Swift type read from and written to one jansson scalar without going through a container:
/// `Bool`, `String`, the floating-point and the fixed-width integer types.
///
/// Reading throws rather than returning an optional: generic code that reads some `S: JanssonScalar`
/// would otherwise look up the metadata of `Optional<S>` at run time on every read.
protocol JanssonScalar {
    /// The value, if `view` holds one this type accepts exactly.
    static func read(_ view: JSONView) -> Self?
    /// ``read(_:)`` for generic callers: the value, or ``JanssonMismatch`` when `view` is missing or
    /// holds something else.
    static func take(_ view: JSONView?) throws(JanssonMismatch) -> Self
    /// Decodes `[Self]` from the decoder's current value, skipping the `Decodable` round trip per element.
    static func readArray(with decoder: JanssonDecoderImpl) throws(JSONFieldError) -> [Self]
    /// Encodes `[Self]` as a jansson array (a new reference); `path` locates it for errors.
    static func makeArray(_ values: [Self], at path: [any CodingKey]) throws -> UnsafeMutablePointer<json_t>
    /// How error messages name what this type accepts: `"integer 0...255"`.
    static var expectation: String { get }
    /// A new reference to the jansson value, or `nil` when JSON cannot carry this value.
    func makeJSON() -> UnsafeMutablePointer<json_t>?
    /// Why ``makeJSON()`` gave `nil`.
    var unrepresentableReason: String { get }
}

/// A value is missing or not of the type asked for.
struct JanssonMismatch: Error {}

extension JanssonScalar {
    static func take(_ view: JSONView?) throws(JanssonMismatch) -> Self {
        guard let view, let value = read(view) else { throw JanssonMismatch() }
        return value
    }

    static func readArray(with decoder: JanssonDecoderImpl) throws(JSONFieldError) -> [Self] {
        guard let array = decoder.value, array.kind == .array else { throw decoder.mismatch(expected: "array") }
        let count = json_array_size(array.pointer)
        var values: [Self] = []
        values.reserveCapacity(count)
        for index in 0..<count {
            let element = JSONView(json_array_get(array.pointer, index))
            do {
                values.append(try take(element))
            } catch {
                throw decoder.mismatch(element, base: decoder.path.count, key: JanssonIndexKey(index), expected: expectation)
            }
            if Self.self == String.self, decoder.rejectsNUL, element.stringContainsNUL {
                throw decoder.mismatch(element, base: decoder.path.count, key: JanssonIndexKey(index), expected: JanssonDecoderImpl.textWithoutNUL)
            }
        }
        return values
    }

    static func makeArray(_ values: [Self], at path: [any CodingKey]) throws -> UnsafeMutablePointer<json_t> {
        let array = json_array()!
        for (index, value) in values.enumerated() {
            guard let element = value.makeJSON() else {
                json_decref(array)
                throw JanssonEncoderImpl.invalid(value, reason: value.unrepresentableReason, at: path + [JanssonIndexKey(index)])
            }
            json_array_append_new(array, element)
        }
        return array
    }

    var unrepresentableReason: String { "\(Self.self) \(self) cannot be written as JSON" }
}

extension Bool: JanssonScalar {
    static func read(_ view: JSONView) -> Bool? { view.bool }
    static var expectation: String { "boolean" }
    func makeJSON() -> UnsafeMutablePointer<json_t>? { self ? json_true() : json_false() }
}

extension String: JanssonScalar {
    static func read(_ view: JSONView) -> String? { view.string }
    static var expectation: String { "string" }
    func makeJSON() -> UnsafeMutablePointer<json_t>? { JanssonValue.makeString(self) }
}

extension Double: JanssonScalar {
    /// A JSON integer is accepted where a real is expected.
    static func read(_ view: JSONView) -> Double? { view.double }
    static var expectation: String { "number" }
    func makeJSON() -> UnsafeMutablePointer<json_t>? { isFinite ? json_real(self) : nil }
    var unrepresentableReason: String { "Double \(self) cannot be written as JSON, which has no NaN or infinity" }
}

extension Float: JanssonScalar {
    static func read(_ view: JSONView) -> Float? {
        guard let double = view.double else { return nil }
        let float = Float(double)
        return float.isFinite ? float : nil
    }
    static var expectation: String { "number \(-Float.greatestFiniteMagnitude)...\(Float.greatestFiniteMagnitude)" }
    /// Written with the digits of the `Float` (`0.1`), not of the `Double` it widens to (`0.10000000149011612`).
    func makeJSON() -> UnsafeMutablePointer<json_t>? {
        guard isFinite else { return nil }
        return json_real(Double(description) ?? Double(self))
    }
    var unrepresentableReason: String { "Float \(self) cannot be written as JSON, which has no NaN or infinity" }
}

/// Integers: jansson holds every JSON integer as a signed 64-bit value.
protocol JanssonInteger: JanssonScalar, FixedWidthInteger {}

extension JanssonInteger {
    static func read(_ view: JSONView) -> Self? {
        guard let value = view.int64 else { return nil }
        return Self(exactly: value)
    }

    /// `"integer"` when every JSON integer fits, else the range, e.g. `"integer 0...255"`.
    static var expectation: String {
        let low = Int64(clamping: Self.min), high = Int64(clamping: Self.max)
        if low == .min && high == .max { return "integer" }
        return "integer \(low)...\(high)"
    }

    func makeJSON() -> UnsafeMutablePointer<json_t>? {
        guard let value = Int64(exactly: self) else { return nil }
        return json_integer(json_int_t(value))
    }

    var unrepresentableReason: String {
        "\(Self.self) \(self) cannot be written as JSON, whose integers are signed 64-bit"
    }
}

extension Int: JanssonInteger {}
extension Int8: JanssonInteger {}
extension Int16: JanssonInteger {}
extension Int32: JanssonInteger {}
extension Int64: JanssonInteger {}
extension UInt: JanssonInteger {}
extension UInt8: JanssonInteger {}
extension UInt16: JanssonInteger {}
extension UInt32: JanssonInteger {}
extension UInt64: JanssonInteger {}

/// How error messages name what `type` accepts.
func janssonExpectation(for type: Any.Type) -> String {
    if let scalar = type as? any JanssonScalar.Type { return scalar.expectation }
    if type == JSONValue.self { return "any JSON value" }
    return "\(type)"
}

/// `T` as a scalar type, found by comparing metatypes, which is cheaper than a conformance lookup;
/// `nil` for every other type. Generic container methods use it to skip the `Codable` round trip
/// for `[UInt32]` elements, `String` raw values and the like.
@inline(__always)
func janssonScalarType<T>(_ type: T.Type) -> (any JanssonScalar.Type)? {
    switch ObjectIdentifier(type) {
    case ObjectIdentifier(String.self): String.self
    case ObjectIdentifier(Int.self): Int.self
    case ObjectIdentifier(Bool.self): Bool.self
    case ObjectIdentifier(Double.self): Double.self
    case ObjectIdentifier(Int64.self): Int64.self
    case ObjectIdentifier(UInt32.self): UInt32.self
    case ObjectIdentifier(UInt64.self): UInt64.self
    case ObjectIdentifier(Int32.self): Int32.self
    case ObjectIdentifier(UInt.self): UInt.self
    case ObjectIdentifier(Float.self): Float.self
    case ObjectIdentifier(UInt8.self): UInt8.self
    case ObjectIdentifier(UInt16.self): UInt16.self
    case ObjectIdentifier(Int8.self): Int8.self
    case ObjectIdentifier(Int16.self): Int16.self
    default: nil
    }
}

/// The element type of `T` when `T` is an array of one of the common scalar types; `nil` otherwise.
/// Such arrays are read and written in one loop instead of one `Codable` call per element.
@inline(__always)
func janssonScalarArrayElement<T>(_ type: T.Type) -> (any JanssonScalar.Type)? {
    switch ObjectIdentifier(type) {
    case ObjectIdentifier([String].self): String.self
    case ObjectIdentifier([Int].self): Int.self
    case ObjectIdentifier([Int64].self): Int64.self
    case ObjectIdentifier([UInt32].self): UInt32.self
    case ObjectIdentifier([UInt64].self): UInt64.self
    case ObjectIdentifier([Int32].self): Int32.self
    case ObjectIdentifier([Double].self): Double.self
    case ObjectIdentifier([Bool].self): Bool.self
    default: nil
    }
}
