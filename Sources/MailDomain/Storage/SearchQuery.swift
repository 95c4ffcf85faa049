import Jansson
import SwitchboardCore

/// A `mail.search` query: its terms, how they match, and how hits are scored and ordered.
///
/// The query text is split at whitespace into terms, and each term into tokens as SQLite's
/// `unicode61 remove_diacritics 2` tokenizer splits text (runs of letters and digits, lower-cased,
/// diacritics folded: `café`, `cafe\u{301}` and `cafe` are one token, see ``tokens(_:)``). A term is searched as
/// a phrase of its tokens, quoted, so no text a user types is FTS5 syntax: `"NEAR(`, `*`, `AND`, a
/// lone quote are plain words or nothing. A message matches when every term appears in its sender,
/// subject or text.
///
/// The score is static: each term adds 4 when it is in the subject, 2 in the sender, 1 in the text.
/// Hits are ordered by score, then date, then uid, all descending, so a subject hit comes before a
/// text-only one and a cursor stays valid while mail arrives.
struct SearchQuery: Sendable, Equatable {
    /// Each term's tokens; no term is empty.
    let terms: [[String]]

    static let maximumTerms = 16
    /// The most tokens the terms may hold in all (`a-b-c` is one term of three). Each token's places in
    /// the matching messages are walked, so a query of hundreds of tokens against long messages kept a
    /// thread busy for seconds (499 in one word: 24 s; 16 words of 16–32: 19 s).
    static let maximumTokens = 32
    static let columns: [(name: String, weight: Int)] = [("subject", 4), ("from_addr", 2), ("body", 1)]

    init(_ text: String) {
        var terms: [[String]] = []
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            let tokens = Self.tokens(String(word))
            if !tokens.isEmpty, !terms.contains(tokens) { terms.append(tokens) }
        }
        self.terms = Array(terms.prefix(Self.maximumTerms))
    }

    /// The `-32602` error naming `query` when `text` has more than ``maximumTerms`` different terms
    /// (every term must match, so one left out would widen the search unsaid), or more than
    /// ``maximumTokens`` tokens in its different terms.
    static func check(_ text: String) throws(JSONFieldError) {
        var terms: Set<[String]> = []
        var tokenCount = 0
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            let tokens = Self.tokens(String(word))
            if !tokens.isEmpty, terms.insert(tokens).inserted { tokenCount += tokens.count }
        }
        if terms.count > maximumTerms {
            throw JSONFieldError(field: "query", expected: "at most \(maximumTerms) different words", got: "\(terms.count) words")
        }
        guard tokenCount > maximumTokens else { return }
        throw JSONFieldError(field: "query", expected: "at most \(maximumTokens) word parts in all (a-b-c is three: letters and digits between other characters are a part)",
                             got: "\(tokenCount) parts")
    }

    var isEmpty: Bool { terms.isEmpty }

    /// The terms as text, the part of the list id that keeps a cursor to its query.
    var normalized: String { terms.map { $0.joined(separator: " ") }.joined(separator: "\u{1E}") }

    func listID(account: String) -> String { "search/\(account)/\(normalized)" }

    // MARK: FTS5

    /// The FTS5 phrase of term `index`: its tokens, quoted (tokens hold no quotes).
    func phrase(_ index: Int) -> String { "\"" + terms[index].joined(separator: " ") + "\"" }

    /// Every term, anywhere: FTS5 joins adjacent phrases with AND.
    var matchExpression: String { terms.indices.map(phrase).joined(separator: " ") }

    /// Term `index` in one column.
    func matchExpression(term index: Int, column: String) -> String { "\(column) : \(phrase(index))" }

    // MARK: In memory

    /// The score of a message, or `nil` when some term is in none of its columns.
    func score(from: String, subject: String, text: String) -> Int? {
        let columns = [Self.tokens(subject), Self.tokens(from), Self.tokens(text)]
        var total = 0
        for term in terms {
            var found = false
            for (column, tokens) in columns.enumerated() where Self.contains(tokens, phrase: term) {
                total += Self.columns[column].weight
                found = true
            }
            guard found else { return nil }
        }
        return total
    }

    private static func contains(_ tokens: [String], phrase: [String]) -> Bool {
        guard tokens.count >= phrase.count else { return false }
        for start in 0...(tokens.count - phrase.count) where tokens[start] == phrase[0] {
            if tokens[start..<start + phrase.count].elementsEqual(phrase) { return true }
        }
        return false
    }

    /// Splits text into tokens the way `unicode61 remove_diacritics 2` does (see ``SearchTokens``).
    static func tokens(_ text: String) -> [String] { SearchTokens.split(text) }

    // MARK: Order and cursors

    /// A hit's place in the results: compares in result order (`a < b` when `a` comes first).
    struct Key: Comparable, Sendable {
        var score: Int
        var time: Int64
        var uid: String

        static func < (a: Key, b: Key) -> Bool {
            if a.score != b.score { return a.score > b.score }
            if a.time != b.time { return a.time > b.time }
            return ByteOrder.less(b.uid, a.uid)
        }
    }

    /// The key after which a page starts; `nil` on the first page.
    func after(_ cursor: String?, account: String) throws(JSONFieldError) -> Key? {
        guard let cursor else { return nil }
        let decoded = try Cursor.decode(cursor, list: listID(account: account))
        let parts = decoded.sortKey.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let score = Int(parts[0]), let time = Int64(parts[1]), !decoded.id.isEmpty else {
            throw Cursor.invalid(cursor)
        }
        return Key(score: score, time: time, uid: decoded.id)
    }

    /// The page of `hits` (sorted, after the cursor, at most `limit + 1`).
    func page(_ hits: [(hit: SearchHit, key: Key)], limit: Int, account: String) -> Page<SearchHit> {
        let items = hits.prefix(limit)
        guard hits.count > limit, let last = items.last else { return Page(items: items.map(\.hit), nextCursor: nil) }
        let cursor = Cursor(list: listID(account: account), sortKey: "\(last.key.score):\(last.key.time)", id: last.key.uid)
        return Page(items: items.map(\.hit), nextCursor: cursor.encoded)
    }
}
