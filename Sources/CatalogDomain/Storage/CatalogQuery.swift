import Jansson
import SwitchboardCore

/// A `catalog.search` query: its terms, folded as mail search folds them (``SearchTokens``), and
/// how a brochure matches.
///
/// A brochure's title and retailer name are kept as ``searchText(title:retailerName:)``: their
/// tokens, each with a space either side, the two fields apart. A term matches when its tokens, in
/// order, are a run of that text (``patterns``); a brochure matches when every term does. Both
/// services test exactly that (SQLite with `instr`), so they answer alike by construction, and
/// `Café`, `cafe\u{301}` and `CAFE` find each other.
public struct CatalogQuery: Sendable, Equatable {
    /// Each term as a pattern of ``searchText(title:retailerName:)``: ` tok1 tok2 `.
    public let patterns: [String]

    static let maximumTerms = 16
    /// The longest query accepted, in characters.
    static let maximumLength = 1_000

    public init(_ text: String) {
        self.patterns = Array(Self.allPatterns(text).prefix(Self.maximumTerms))
    }

    /// Each different term of `text` as a pattern, in order.
    private static func allPatterns(_ text: String) -> [String] {
        var patterns: [String] = []
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            let tokens = SearchTokens.split(String(word))
            guard !tokens.isEmpty else { continue }
            let pattern = " " + tokens.joined(separator: " ") + " "
            if !patterns.contains(pattern) { patterns.append(pattern) }
        }
        return patterns
    }

    /// The query of a request's `query`, or the `-32602` error naming it when it is too long or has
    /// more than ``maximumTerms`` different words (every term must match: one left out would widen
    /// the search unsaid).
    static func parse(_ text: String) throws(JSONFieldError) -> CatalogQuery {
        if text.utf8.count > maximumLength, text.unicodeScalars.count > maximumLength {
            throw JSONFieldError(field: "query", expected: "at most \(maximumLength) characters",
                                 got: "\(text.unicodeScalars.count) characters")
        }
        let patterns = allPatterns(text)
        guard patterns.count <= maximumTerms else {
            throw JSONFieldError(field: "query", expected: "at most \(maximumTerms) different words", got: "\(patterns.count) words")
        }
        return CatalogQuery(text)
    }

    /// A query with no term matches nothing.
    public var isEmpty: Bool { patterns.isEmpty }

    /// The terms as text, the part of the list id that keeps a cursor to its query.
    var normalized: String { patterns.joined(separator: "\u{1E}") }

    /// The text a brochure is searched in: ` title tokens | retailer tokens `. No token holds `|`
    /// or a space, so a term never matches across the two fields.
    public static func searchText(title: String, retailerName: String) -> String {
        let title = SearchTokens.split(title), retailer = SearchTokens.split(retailerName)
        return " " + (title + ["|"] + retailer).joined(separator: " ") + " "
    }

    /// Whether every term is in `searchText` (a ``searchText(title:retailerName:)``).
    public func matches(searchText: String) -> Bool {
        !isEmpty && patterns.allSatisfy { searchText.utf8.firstRange(of: $0.utf8) != nil }
    }
}
