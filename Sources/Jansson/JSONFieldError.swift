/// A params (or other decoded) value that does not have the shape a handler expects.
///
/// The JSON-RPC layer turns this into `-32602 Invalid params` with
/// `error.data = {"field": …, "expected": …, "got": …}`, so all three strings are written for a person
/// reading an error message:
///
/// - `field`: the path of the offending member: `""` for the value itself, `"limit"`,
///   `"filter.folder"`, `"uids[2]"`.
/// - `expected`: what would have been accepted: `"integer"`, `"string"`, `"boolean"`, `"array"`,
///   `"object"`, `"integer -128...127"`, `"one of \"inbox\", \"sent\""`.
/// - `got`: the compact JSON text of the value received (cut at 80 characters), or `"nothing"` when the
///   member is missing.
public struct JSONFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var expected: String
    public var got: String

    public init(field: String, expected: String, got: String) {
        self.field = field
        self.expected = expected
        self.got = got
    }

    /// What `got` says when the member is absent.
    public static let nothing = "nothing"

    /// `limit: expected integer 1...500, got "ten"`; the root reads `params: expected object, got 3`.
    public var description: String {
        "\(field.isEmpty ? "params" : field): expected \(expected), got \(got)"
    }

    /// For a handler's own checks, after decoding: `throw .outOfRange(field: "limit", expected: "integer 1...500", got: limit)`.
    ///
    /// `got` is written as JSON text: a string value comes out quoted, a number as a number.
    public static func outOfRange(field: String, expected: String, got value: some Encodable) -> JSONFieldError {
        guard let json = try? JanssonEncoder().encode(value) else {
            return JSONFieldError(field: field, expected: expected, got: "\(value)")
        }
        let text = withExtendedLifetime(json) { json.view.preview(limit: 80) }
        return JSONFieldError(field: field, expected: expected, got: text)
    }
}
