/// JSCalendar's `@type` member (RFC 8984): an object may name its type. It is accepted where RFC 8984
/// defines it (`Event`, `Location`, `Participant`, `RecurrenceRule`, `NDay`), its value checked (another
/// is `-32602` naming `….@type`), and not written back: every answer's objects have one type each, so it
/// would say nothing a client does not know.
enum JSCalendarType {
    private enum Key: String, CodingKey { case type = "@type" }

    /// Reads `@type` of the object `decoder` is at, if present, and throws unless it is `name`.
    static func check(_ decoder: any Decoder, is name: String) throws {
        let container = try decoder.container(keyedBy: Key.self)
        guard let value = try container.decodeIfPresent(String.self, forKey: .type), value != name else { return }
        throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath + [Key.type],
                                                                debugDescription: "\"\(name)\" or no @type"))
    }
}
