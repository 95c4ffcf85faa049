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
///
/// - Important: An error never quotes a client's value whole. Build `got` with ``quote(_:)`` or
///   ``excerpt(_:limit:)`` (at most ``quoteLimit`` characters, then `…` and the full length); as a
///   backstop, `init` cuts `field` and `got` at twice that and `expected` at four times, so an 8 MB
///   cursor gets a reply of a few hundred bytes.
public struct JSONFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var expected: String
    public var got: String

    public init(field: String, expected: String, got: String) {
        self.field = Self.excerpt(field, limit: 2 * Self.quoteLimit)
        self.expected = Self.excerpt(expected, limit: 4 * Self.quoteLimit)
        self.got = Self.excerpt(got, limit: 2 * Self.quoteLimit)
    }

    /// The most characters (Unicode scalars) of a client's value an error quotes.
    public static let quoteLimit = 100

    /// `text` when it has at most `limit` characters, else its first `limit` and `… (N bytes)`.
    public static func excerpt(_ text: String, limit: Int = quoteLimit) -> String {
        // At most `limit` bytes means at most `limit` scalars: the common case costs no scan.
        guard text.utf8.count > limit else { return text }
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex),
              end != scalars.endIndex else { return text }
        return String(scalars[..<end]) + "… (\(text.utf8.count) bytes)"
    }

    /// `text` as a JSON string for `got`, cut like ``excerpt(_:limit:)``: `"abc…" (8388608 bytes)`.
    /// Escapes only the part it keeps, so quoting a huge value costs little.
    public static func quote(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard text.utf8.count > quoteLimit,
              let end = scalars.index(scalars.startIndex, offsetBy: quoteLimit, limitedBy: scalars.endIndex),
              end != scalars.endIndex
        else { return JSONValue.string(text).jsonText() }
        let quoted = JSONValue.string(String(scalars[..<end])).jsonText()
        return quoted.dropLast() + "…\" (\(text.utf8.count) bytes)"
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
