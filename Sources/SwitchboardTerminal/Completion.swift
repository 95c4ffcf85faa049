/// What Tab offers at the prompt: method names for the first word (and after `help`), the method's
/// param names after it — as `name=` for shorthand, or bare inside a JSON member name (`{"li` → `limit`).
public struct Completion: Equatable, Sendable {
    public var candidates: [String]
    /// Added after a single match: a space after a method, `"` after a JSON member name, nothing after `name=`.
    public var appendCharacter: Character?

    /// The completion of `word`, typed after `before` (the line up to where the word starts).
    public init(before: String, word: String, catalog: MethodCatalog) {
        let firstWord = before.split(whereSeparator: \.isWhitespace).first.map(String.init)
        let ownWords = ["help", "quit"]
        guard let method = firstWord, before.contains(where: \.isWhitespace) else {
            candidates = (catalog.methods.map(\.name) + ownWords).filter { $0.hasPrefix(word) }
            appendCharacter = " "
            return
        }
        if method == "help" || method == "?" {
            candidates = catalog.methods.map(\.name).filter { $0.hasPrefix(word) }
            appendCharacter = nil
            return
        }
        let names = catalog.method(named: method)?.params.filter { $0.hasPrefix(word) } ?? []
        if before.last == "\"" {
            candidates = names
            appendCharacter = "\""
        } else {
            candidates = names.map { $0 + "=" }
            appendCharacter = nil
        }
    }
}
