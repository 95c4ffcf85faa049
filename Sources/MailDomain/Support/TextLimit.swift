import Jansson

/// The size limits of mail's text params, in characters (Unicode scalars, as JSON Schema's
/// `maxLength` counts them); the schemas in `Schemas/methods/mail.*.json` say the same.
///
/// A longer value is `-32602` naming its field: `subject: expected at most 1000 characters, got 1200
/// characters`. The cursor's limit is ``Cursor/maximumLength``; an address's 254 is in ``EmailAddress``.
enum TextLimit {
    static let subject = 1_000
    static let text = 1_000_000
    static let query = 1_000
    /// A uid, thread id or `inReplyTo`.
    static let id = 200
    static let password = 1_000
    /// Addresses in `to`, and in `cc`.
    static let addresses = 100

    /// Throws unless `text` has at most `maximum` characters.
    static func check(_ text: String, field: String, maximum: Int) throws(JSONFieldError) {
        // No more bytes than the limit means no more characters: the common case counts nothing.
        guard text.utf8.count > maximum else { return }
        let count = text.unicodeScalars.count
        guard count > maximum else { return }
        throw JSONFieldError(field: field, expected: "at most \(maximum) characters", got: "\(count) characters")
    }
}
