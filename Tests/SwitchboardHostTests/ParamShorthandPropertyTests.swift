import Jansson
import PropertyBased
import SwitchboardTerminal
import Testing

/// `key=value` words come from a person or a script: any text must give params or a clear refusal,
/// never a trap, and a value is only ever read as what it plainly says.
@Suite("key=value params and prompt lines, any input")
struct ParamShorthandPropertyTests {
    static let pieces = ["a", "limit", "=", "3", "-1", "1.5", "1e400", "99999999999999999999", "true", "null", "\"", "\\", "[", "{",
                         "}", " ", "é", "\u{0}", "x=y", "\"q\""]

    static let words = zip(Gen.int(in: 0...(pieces.count * 4 / 3)), Gen.uint32(in: 0...0x10FFFF))
        .map { index, value in index < pieces.count ? pieces[index] : (Unicode.Scalar(value).map { String($0) } ?? "\u{FFFD}") }
        .array(of: 0...6)
        .map { $0.joined() }
        .array(of: 1...4)

    @Test("any words give an object with each key once, in order, or a refusal; a value is JSON it spells or the text itself")
    func anyWords() async {
        await propertyCheck(count: 2_000, input: Self.words) { words in
            guard let params = try? ParamShorthand.params(from: words) else {
                let keys = words.map { $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                #expect(words.contains { !$0.contains("=") } || keys.contains { $0.isEmpty } || Set(keys).count < keys.count)
                return
            }
            let object = params.objectValue
            #expect(object?.keys == words.map { String($0.prefix { $0 != "=" }) })
            for (word, (_, value)) in zip(words, object ?? [:]) {
                let text = String(word.drop { $0 != "=" }.dropFirst())
                switch value {
                case .string(let string):
                    #expect(string == text || JSONValue.string(string) == (try? JSONValue(parsing: text)))
                case .array, .object:
                    Issue.record("\(text) became a container")
                default:
                    #expect((try? JSONValue(parsing: text)) == value)
                }
            }
        }
    }

    @Test("any typed line is a call, one of the prompt's words, or a reason; a call's method has no whitespace")
    func anyLine() async {
        await propertyCheck(count: 2_000, input: Self.words.map { $0.joined(separator: " ") }) { line in
            switch PromptCommand(line: line) {
            case .call(let method, _):
                #expect(!method.isEmpty && !method.contains(where: \.isWhitespace))
            case .invalid(let reason):
                #expect(!reason.isEmpty)
            case .empty, .help, .quit:
                break
            }
        }
    }
}
