/// `mail.search` on PostgreSQL: each searched column has a folded twin (`search_subject`, …) holding
/// its ``SearchQuery/tokens(_:)`` joined by single spaces, with a space at each end, so a term (a
/// phrase of tokens) is in a column exactly when `' token token '` is a substring of the twin: a
/// `LIKE` that the twins' trigram indexes serve. Query and text fold alike, as in memory.
extension SearchQuery {
    /// The folded twin of a column's text.
    static func folded(_ text: String) -> String {
        " " + tokens(text).joined(separator: " ") + " "
    }

    /// The folded twin of column `name` (one of ``columns``).
    static func foldedColumn(_ name: String) -> String { "search_" + name }

    /// The `LIKE` pattern of term `index` (tokens hold no `%`, `_` or `\`; escaped all the same).
    func likePattern(_ index: Int) -> String {
        let phrase = " " + terms[index].joined(separator: " ") + " "
        var escaped = ""
        for character in phrase {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
