import Jansson

/// The size limits of chat's params, in characters (Unicode scalars, as JSON Schema's `maxLength`
/// counts them); the schemas in `Schemas/methods/chat.*.json` say the same. `U+0000` is refused
/// before any of this, by the params decoder.
enum ChatLimits {
    /// A user, room or message id, or a client message id.
    static let id = 200
    static let text = 4_000

    /// Throws the `-32602` error naming `field` unless `value` has 1...`maximum` characters.
    static func check(_ value: String, field: String, maximum: Int) throws(JSONFieldError) {
        guard !value.isEmpty else { throw JSONFieldError(field: field, expected: "a non-empty string", got: "\"\"") }
        // No more bytes than the limit means no more characters: the common case counts nothing.
        guard value.utf8.count > maximum else { return }
        let count = value.unicodeScalars.count
        guard count > maximum else { return }
        throw JSONFieldError(field: field, expected: "at most \(maximum) characters", got: "\(count) characters")
    }
}
