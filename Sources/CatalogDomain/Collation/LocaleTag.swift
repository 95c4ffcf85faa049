/// The syntax of a `locale` param: a BCP 47 language tag of the parts collation uses,
/// `language[-Script][-REGION][-u-co-type]` (`de`, `sv-SE`, `zh-Hant-TW`, `es-419`, `de-u-co-phonebk`),
/// letters in any case, `_` accepted for `-` (`de_DE`). Anything else (variants, other extensions,
/// private use, an empty string) is not a tag this reads.
///
/// Syntax only: whether ICU knows the language is ``SectorLocale``'s check.
struct LocaleTag: Sendable, Equatable {
    /// 2 or 3 letters, lower-case.
    var language: String
    /// 4 letters, title-case.
    var script: String?
    /// 2 letters upper-case, or 3 digits.
    var region: String?
    /// The `-u-co-` collation type, 3 to 8 letters or digits, lower-case.
    var collation: String?

    /// The longest text read as a tag; longer is refused without reading it.
    static let maximumLength = 64

    init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength,
              text.utf8.allSatisfy({ Self.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        var parts = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: UInt8(ascii: "_"), omittingEmptySubsequences: false) }
            .map { String(decoding: $0, as: UTF8.self).lowercased() }[...]
        guard let language = parts.popFirst(), (2...3).contains(language.count), language.utf8.allSatisfy(Self.isLetter) else { return nil }
        self.language = language
        if let next = parts.first, next.count == 4, next.utf8.allSatisfy(Self.isLetter) {
            script = next.prefix(1).uppercased() + next.dropFirst()
            parts.removeFirst()
        }
        if let next = parts.first,
           (next.count == 2 && next.utf8.allSatisfy(Self.isLetter)) || (next.count == 3 && next.utf8.allSatisfy(Self.isDigit)) {
            region = next.uppercased()
            parts.removeFirst()
        }
        if parts.first == "u" {
            guard parts.count == 3, parts[parts.startIndex + 1] == "co" else { return nil }
            let type = parts[parts.startIndex + 2]
            guard (3...8).contains(type.count) else { return nil }
            collation = type
            parts.removeAll()
        }
        guard parts.isEmpty else { return nil }
    }

    /// The tag in its canonical BCP 47 form: `zh-Hant-TW`, `de-u-co-phonebk`.
    var identifier: String {
        var parts = [language]
        if let script { parts.append(script) }
        if let region { parts.append(region) }
        if let collation { parts += ["u", "co", collation] }
        return parts.joined(separator: "-")
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isAlphanumeric(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }
}
