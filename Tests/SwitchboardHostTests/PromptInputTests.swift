import Jansson
import SwitchboardTerminal
import Testing

/// What a person types at the prompt and after `switchboard call METHOD`: JSON params, `key=value`
/// words, the prompt's own words, and what Tab offers.
@Suite("Prompt input and key=value params")
struct PromptInputTests {
    static let catalog = MethodCatalog(methods: [
        .init(name: "inbox.list", summary: "Lists conversations.", params: ["folder", "unreadOnly", "cursor", "limit"]),
        .init(name: "inbox.count", summary: "Counts.", params: []),
        .init(name: "host.ping", summary: "Answers pong.", params: []),
    ])

    @Test("key=value values: numbers, booleans and null as JSON, quoted text as that string, the rest as text")
    func shorthandValues() throws {
        let params = try ParamShorthand.params(from: ["limit=3", "ratio=1.5", "unreadOnly=true", "cursor=null", "folder=Inbox",
                                                      "id=\"42\"", "list=[1]", "empty=", "eq=a=b"])
        #expect(params == ["limit": 3, "ratio": 1.5, "unreadOnly": true, "cursor": nil, "folder": "Inbox",
                           "id": "42", "list": "[1]", "empty": "", "eq": "a=b"])
    }

    @Test("key=value refuses a word without =, an empty key and a key given twice")
    func shorthandRefusals() {
        #expect(throws: ParamShorthand.Failure.self) { try ParamShorthand.params(from: ["limit=3", "folder"]) }
        #expect(throws: ParamShorthand.Failure.self) { try ParamShorthand.params(from: ["=3"]) }
        #expect(throws: ParamShorthand.Failure.self) { try ParamShorthand.params(from: ["a=1", "a=2"]) }
    }

    @Test("a typed line is a method with JSON params, key=value words, no params, or the prompt's own words")
    func commands() {
        #expect(PromptCommand(line: #"  inbox.list {"limit": 3} "#) == .call(method: "inbox.list", params: ["limit": 3]))
        #expect(PromptCommand(line: "inbox.list limit=3 folder=Inbox") == .call(method: "inbox.list", params: ["limit": 3, "folder": "Inbox"]))
        #expect(PromptCommand(line: "host.echo [1, 2]") == .call(method: "host.echo", params: [1, 2]))
        #expect(PromptCommand(line: "host.ping") == .call(method: "host.ping", params: nil))
        #expect(PromptCommand(line: "   ") == .empty)
        #expect(PromptCommand(line: "help") == .help(prefix: nil))
        #expect(PromptCommand(line: "help inbox") == .help(prefix: "inbox"))
        #expect(PromptCommand(line: "quit") == .quit)
        guard case .invalid = PromptCommand(line: #"inbox.list {"limit": "#) else {
            Issue.record("unfinished JSON is not a command")
            return
        }
    }

    @Test("Tab on the first word offers method names and the prompt's words, with a space after")
    func completesMethods() {
        let completion = Completion(before: "", word: "inbox.", catalog: Self.catalog)
        #expect(completion.candidates == ["inbox.count", "inbox.list"])
        #expect(completion.appendCharacter == " ")
        #expect(Completion(before: "", word: "h", catalog: Self.catalog).candidates == ["host.ping", "help"])
        #expect(Completion(before: "help ", word: "inbox.l", catalog: Self.catalog).candidates == ["inbox.list"])
    }

    @Test("Tab after a method offers its param names: as name= words, or bare inside a JSON member name")
    func completesParams() {
        let words = Completion(before: "inbox.list limit=3 ", word: "u", catalog: Self.catalog)
        #expect(words.candidates == ["unreadOnly="])
        #expect(words.appendCharacter == nil)
        let json = Completion(before: #"inbox.list {""#, word: "li", catalog: Self.catalog)
        #expect(json.candidates == ["limit"])
        #expect(json.appendCharacter == "\"")
        #expect(Completion(before: "no.such ", word: "", catalog: Self.catalog).candidates.isEmpty)
    }

    @Test("help lists each method with its summary, names aligned, without colour when colour is off")
    func help() {
        let text = Self.catalog.helpText(prefix: "inbox", highlighter: JSONHighlighter(colour: false))
        #expect(text == "inbox.count  Counts.\ninbox.list   Lists conversations.")
        #expect(!Self.catalog.helpText(prefix: nil, highlighter: JSONHighlighter(colour: false)).contains("\u{1B}"))
    }

    @Test("answers are indented JSON; colour codes only when asked for")
    func highlighting() throws {
        let value: JSONValue = ["a": [1, "x", true, nil], "b": [:]]
        let plain = JSONHighlighter(colour: false).render(value)
        #expect(plain == "{\n  \"a\": [\n    1,\n    \"x\",\n    true,\n    null\n  ],\n  \"b\": {}\n}")
        #expect(try JSONValue(parsing: plain) == value)
        let coloured = JSONHighlighter(colour: true).render(value)
        #expect(coloured.contains("\u{1B}[34m\"a\"\u{1B}[0m"))
    }
}
