import CJansson
import Jansson
import Testing

/// The indenter lays a text out as jansson's `JSON_INDENT(2)` does, from the text alone: random
/// documents, written compact by jansson, indent to the very bytes jansson writes indented; tokens are
/// kept as they are; no text, valid or not, makes it trap.
@Suite("JSONIndenter")
struct JSONIndenterTests {
    typealias Random = JSONScannerTests.Random

    /// jansson's own text of `document`: compact, or indented by two spaces.
    static func janssonText(_ document: JanssonValue, indented: Bool) -> [UInt8] {
        let flags = Int(JSON_ENCODE_ANY) | (indented ? sb_json_max_indent(2) : Int(JSON_COMPACT)) | sb_json_real_precision(17)
        let length = json_dumpb(document.view.pointer, nil, 0, flags)
        var bytes = [UInt8](repeating: 0, count: length)
        _ = bytes.withUnsafeMutableBytes { json_dumpb(document.view.pointer, $0.baseAddress, length, flags) }
        return bytes
    }

    @Test("random documents: jansson's compact text indents to jansson's indented text, byte for byte")
    func agreesWithJansson() throws {
        var random = Random(state: 0x1DE7)
        var compared = 0
        for _ in 0..<3_000 {
            let text = JSONScannerTests.value(&random, depth: 0)
            guard let document = try? JSONParser.parse(text) else { continue }
            let compact = Self.janssonText(document, indented: false)
            let expected = Self.janssonText(document, indented: true)
            #expect(JSONIndenter.indented(compact) == expected, "\(String(decoding: compact, as: UTF8.self))")
            // Already indented, or spaced at random, text lays out the same.
            #expect(JSONIndenter.indented(expected) == expected)
            #expect(JSONIndenter.indented(Array(text.utf8)) == JSONIndenter.indented(JSONScannerTests.reindentedTokens(text)))
            compared += 1
        }
        #expect(compared > 2_000)
    }

    @Test("tokens are copied as written: digits, escapes, and brackets, commas and colons inside strings")
    func tokensKept() {
        let text = #"{"a":[1e2,-0.0,{}],"b, c":"x: [y], {z} \" \\","d":[ ],"\u00e9":{ "e" : null }}"#
        let expected = """
            {
              "a": [
                1e2,
                -0.0,
                {}
              ],
              "b, c": "x: [y], {z} \\" \\\\",
              "d": [],
              "\\u00e9": {
                "e": null
              }
            }
            """
        #expect(String(decoding: JSONIndenter.indented(Array(text.utf8)), as: UTF8.self) == expected)
        #expect(JSONIndenter.indented(Array(#""top""#.utf8)) == Array(#""top""#.utf8))
        #expect(JSONIndenter.indented(Array(" 42 ".utf8)) == Array("42".utf8))
    }

    @Test("text that is not JSON (cut, mutated, random bytes) never traps")
    func anyTextIsSafe() {
        var random = Random(state: 0xBAD)
        for round in 0..<3_000 {
            let valid = Array(JSONScannerTests.value(&random, depth: 0).utf8)
            let text = round % 3 == 0 ? (0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                                      : JSONScannerTests.mutate(valid, &random)
            _ = JSONIndenter.indented(text)
        }
        _ = JSONIndenter.indented(Array("}}]]\"\\".utf8))
    }
}

extension JSONScannerTests {
    /// `text` with its white space between tokens dropped: the same document, spaced otherwise.
    static func reindentedTokens(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        var inString = false, escaped = false
        for byte in text.utf8 {
            if inString {
                output.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                output.append(byte)
            } else if ![0x20, 0x0A, 0x0D, 0x09].contains(byte) {
                output.append(byte)
            }
        }
        return output
    }
}
