import Foundation

/// The tokens searches match on, folded as SQLite's `unicode61 remove_diacritics 2` tokenizer folds
/// text: `café`, `cafe\u{301}`, `CAFE` and `cafe` are one token. Mail search and catalog search use it.
public enum SearchTokens {
    /// Splits text into tokens: letters, digits, private-use characters and combining marks make
    /// tokens, everything else separates them; tokens are lower-cased, combining marks dropped, and
    /// Latin letters folded to their base (`É` → `e`).
    ///
    /// Text is first composed (NFC), so a decomposed `cafe\u{301}` and `café` give the same token
    /// `cafe`. SQLite folds only precomposed Latin letters and drops marks wherever they stand, so on
    /// decomposed non-Latin text (a Greek `α\u{301}`) this and an FTS5 index can differ; NFC text,
    /// which is what keyboards and mail clients send, tokenizes alike.
    public static func split(_ text: String) -> [String] {
        let composed = text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in composed.unicodeScalars {
            if scalar.isASCII {
                let value = scalar.value
                if (48...57).contains(value) || (97...122).contains(value) {
                    current.append(scalar)
                    continue
                }
                if (65...90).contains(value) {
                    current.append(Unicode.Scalar(value + 32) ?? scalar)
                    continue
                }
            } else {
                switch scalar.properties.generalCategory {
                case .nonspacingMark:
                    continue
                case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                     .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                    // `İ` lower-cases to `i` and a combining dot, which goes with the other marks.
                    for lower in scalar.properties.lowercaseMapping.unicodeScalars where lower.properties.generalCategory != .nonspacingMark {
                        current.append(folded(lower))
                    }
                    continue
                default:
                    break
                }
            }
            if !current.isEmpty {
                tokens.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        return tokens
    }

    /// A Latin letter with diacritics as its ASCII base (`é` → `e`), and the letters SQLite folds to
    /// another (``specialFolds``: `ς` → `σ`, `ſ` and `ẛ` → `s`, `µ` → `μ`, …); any other scalar as it is.
    private static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard !scalar.isASCII else { return scalar }
        if let special = specialFolds[scalar.value] { return special }
        let parts = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        guard let first = parts.first, parts.count > 1,
              parts.dropFirst().allSatisfy({ $0.properties.generalCategory == .nonspacingMark })
        else { return scalar }
        let base = specialFolds[first.value] ?? first
        return base.isASCII ? base : scalar
    }

    /// What the folding of switchboards before November 2026 left in folded text and this one never
    /// does: the letters of ``specialFolds``, `ẛ`, and the combining dot of a lower-cased `İ`. Stored
    /// folded text holding one of them is folded again (mail on PostgreSQL, the catalog's `search_text`).
    public static let olderFoldingScalars: [Unicode.Scalar] =
        specialFolds.keys.sorted().compactMap(Unicode.Scalar.init) + ["\u{1E9B}", "\u{0307}"]

    /// A PostgreSQL regular expression matching any of ``olderFoldingScalars``.
    public static let olderFoldingPattern = "[" + String(String.UnicodeScalarView(olderFoldingScalars)) + "]"

    /// Lower-case letters SQLite's `unicode61` folds to another letter (its table follows Unicode's case
    /// folding, where Swift's lower-case mapping leaves them): the final sigma, the long s, the micro
    /// sign and Greek's symbol forms.
    private static let specialFolds: [UInt32: Unicode.Scalar] = [
        0x03C2: "\u{03C3}",  // ς → σ
        0x017F: "s",         // ſ
        0x00B5: "\u{03BC}",  // µ → μ
        0x03D0: "\u{03B2}",  // ϐ → β
        0x03D1: "\u{03B8}",  // ϑ → θ
        0x03D5: "\u{03C6}",  // ϕ → φ
        0x03D6: "\u{03C0}",  // ϖ → π
        0x03F0: "\u{03BA}",  // ϰ → κ
        0x03F1: "\u{03C1}",  // ϱ → ρ
        0x03F5: "\u{03B5}",  // ϵ → ε
    ]
}
