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
                    for lower in scalar.properties.lowercaseMapping.unicodeScalars { current.append(folded(lower)) }
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

    /// A Latin letter with diacritics as its ASCII base (`é` → `e`); any other scalar as it is.
    private static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard !scalar.isASCII else { return scalar }
        let parts = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        guard let base = parts.first, base.isASCII, parts.count > 1,
              parts.dropFirst().allSatisfy({ $0.properties.generalCategory == .nonspacingMark })
        else { return scalar }
        return base
    }
}
