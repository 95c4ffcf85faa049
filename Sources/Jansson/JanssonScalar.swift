import CJansson

/// A Swift type read from and written to one jansson scalar without going through a container:
/// `Bool`, `String`, the floating-point and the fixed-width integer types.
protocol JanssonScalar {
    /// The value, if `view` holds one this type accepts exactly.
    static func read(_ view: JSONView) -> Self?
    /// How error messages name what this type accepts: `"integer 0...255"`.
    static var expectation: String { get }
    /// A new reference to the jansson value, or `nil` when JSON cannot carry this value.
    func makeJSON() -> UnsafeMutablePointer<json_t>?
    /// Why ``makeJSON()`` gave `nil`.
    var unrepresentableReason: String { get }
}

extension JanssonScalar {
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
