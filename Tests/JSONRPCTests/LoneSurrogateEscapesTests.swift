import Jansson
import PropertyBased
import Testing

/// ``LoneSurrogateEscapes`` finds the `\uD800`–`\uDFFF` escapes that are no pair, inside strings only,
/// and ``JSONScanner`` reports the strings that hold them as valid JSON jansson cannot hold.
@Suite("Lone UTF-16 surrogate escapes")
struct LoneSurrogateEscapesTests {
    static func found(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        return LoneSurrogateEscapes.find(in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test("lone high and low escapes are found; pairs, escaped backslashes and text outside strings are not")
    func fixed() {
        #expect(Self.found(#"{"text":"cut \ud83d"}"#) == [#"\ud83d"#])
        #expect(Self.found(#"["\udcff","\ud83d\ude00","\uD83D\uDE00"]"#) == [#"\udcff"#])
        #expect(Self.found(#"["\\ud83d","\\\ud83d"]"#) == [#"\ud83d"#])
        #expect(Self.found(#"["\ud83d\ud83d\ude00"]"#) == [#"\ud83d"#])
        #expect(Self.found(#"["\ude00\ud83d"]"#) == [#"\ude00"#, #"\ud83d"#])
        #expect(Self.found(#"{"a":1} \ud83d"#).isEmpty)
        #expect(Self.found(#"["\"\ud800"]"#) == [#"\ud800"#])
        #expect(Self.found(#"["\ud8"#).isEmpty)
    }

    @Test("the scanner takes such text as JSON and says where: a value or a member name")
    func scanned() throws {
        let bytes = Array(#"{"id":1,"params":{"t\udcff":"x","list":[1,"\ud83d"]}}"#.utf8)
        let scan = try #require(JSONScanner.scan(bytes))
        #expect(scan.unholdable.map(\.kind) == [.loneSurrogateInMemberName, .loneSurrogate])
        #expect(scan.unholdable.last?.path == [.key("params"), .key("list"), .index(1)])
        #expect(scan.unholdable.first?.path == [.key("params"), .key("t\u{FFFD}")])
        #expect(JSONScanner.scan(Array(#"["\ud83d"#.utf8)) == nil)
    }

    /// One piece of a string token's text, and what it decodes to when lone escapes read as U+FFFD.
    enum Piece: Int, CaseIterable {
        case letter, escapedBackslash, escapedBackslashThenU, escapedQuote, pair, loneHigh, loneLow, escapedA, twoByteLetter, upperHigh, solidus

        var text: String {
            switch self {
            case .letter: "a"
            case .escapedBackslash: #"\\"#
            case .escapedBackslashThenU: #"\\ud83d"#
            case .escapedQuote: #"\""#
            case .pair: #"\ud83d\ude00"#
            case .loneHigh: #"\ud83d"#
            case .loneLow: #"\udcff"#
            case .escapedA: #"\u0041"#
            case .twoByteLetter: "é"
            case .upperHigh: #"\uD800"#
            case .solidus: #"\/"#
            }
        }

        var isHigh: Bool { self == .loneHigh || self == .upperHigh }
    }

    /// The text of a string's pieces, the offsets of its lone escapes, and its value with each as U+FFFD.
    static func model(_ pieces: [Piece]) -> (text: String, lone: [Int], value: [Unicode.Scalar]) {
        var text = "", lone: [Int] = [], value: [Unicode.Scalar] = []
        var previous: Piece?
        for piece in pieces {
            let offset = text.utf8.count
            text += piece.text
            switch piece {
            case .loneHigh, .upperHigh:
                lone.append(offset)
                value.append("\u{FFFD}")
            case .loneLow:
                if let previous, previous.isHigh {
                    // A high escape right before a low one is a pair after all.
                    lone.removeLast()
                    value.removeLast()
                    let high: UInt32 = previous == .loneHigh ? 0xD83D : 0xD800
                    value.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (0xDCFF - 0xDC00)) ?? "?")
                } else {
                    lone.append(offset)
                    value.append("\u{FFFD}")
                }
            case .letter: value.append("a")
            case .escapedBackslash: value.append("\\")
            case .escapedBackslashThenU: value += "\\ud83d".unicodeScalars
            case .escapedQuote: value.append("\"")
            case .pair: value.append("\u{1F600}")
            case .escapedA: value.append("A")
            case .twoByteLetter: value.append("é")
            case .solidus: value.append("/")
            }
            previous = piece == .loneLow && previous?.isHigh == true ? nil : piece
        }
        return (text, lone, value)
    }

    static let strings = Gen.int(in: 0...(Piece.allCases.count - 1)).map { Piece(rawValue: $0) ?? .letter }.array(of: 0...8).array(of: 1...5)

    @Test("any text of strings with random escapes: every lone escape found, pairs and the rest untouched, U+FFFD read in their place")
    func randomStrings() async {
        await propertyCheck(count: 1_000, input: Self.strings) { strings in
            let models = strings.map(Self.model)
            // `{"<first>":["<second>",12,"<third>",true…]}`: the first is a member name.
            var text = "{\""
            var expected: [Int] = []
            for (index, model) in models.enumerated() {
                if index == 1 { text += "\":[\"" } else if index > 1 { text += "\",12,\"" }
                expected += model.lone.map { $0 + text.utf8.count }
                text += model.text
            }
            text += models.count == 1 ? "\":[]}" : "\",true]}"
            let bytes = Array(text.utf8)
            let found = LoneSurrogateEscapes.find(in: bytes)
            #expect(found.map(\.lowerBound) == expected, "\(text)")
            #expect(found.allSatisfy { $0.count == 6 })
            bytes.withUnsafeBytes { #expect(LoneSurrogateEscapes.present(in: $0) == !expected.isEmpty) }

            let replaced = bytes.withUnsafeBytes { LoneSurrogateEscapes.replacedByReplacementCharacter($0) }
            #expect((replaced == nil) == expected.isEmpty)
            let after = replaced?.text ?? bytes
            #expect(after.count == bytes.count)
            for offset in bytes.indices where !found.contains(where: { $0.contains(offset) }) {
                #expect(after[offset] == bytes[offset], "byte \(offset) of \(text)")
            }
            // Read with U+FFFD, jansson holds it, and each string reads as the model says.
            guard let value = try? JSONValue(parsing: after), let object = value.objectValue,
                  let name = object.keys.first, let members = object.values.first else {
                Issue.record("not JSON after replacement: \(String(decoding: after, as: UTF8.self))")
                return
            }
            #expect(Array(name.unicodeScalars) == models[0].value)
            let values = (members.arrayValue ?? []).compactMap(\.stringValue)
            #expect(values.map { Array($0.unicodeScalars) } == models.dropFirst().map(\.value))

            let scan = JSONScanner.scan(bytes)
            #expect(scan != nil, "\(text)")
            let lone = models.map { !$0.lone.isEmpty }
            let kinds = lone.enumerated().compactMap { index, has -> JSONScanner.Unholdable.Kind? in
                has ? (index == 0 ? .loneSurrogateInMemberName : .loneSurrogate) : nil
            }
            #expect(scan?.unholdable.map(\.kind) == kinds, "\(text)")
        }
    }

    static let noise = Gen.int(in: 0...12).map { Array(#""\\u8dD3cfF0[,x"#.utf8)[$0] }.array(of: 0...60)

    @Test("any bytes: no trap, ranges in bounds, in order, each a \\u escape; the scanner and decoding never trap")
    func randomBytes() async {
        await propertyCheck(count: 3_000, input: Self.noise) { bytes in
            let found = LoneSurrogateEscapes.find(in: bytes)
            var end = 0
            for range in found {
                #expect(range.lowerBound >= end && range.upperBound <= bytes.count && range.count == 6)
                #expect(bytes[range.lowerBound] == UInt8(ascii: "\\") && bytes[range.lowerBound + 1] == UInt8(ascii: "u"))
                end = range.upperBound
            }
            bytes.withUnsafeBytes { raw in
                #expect(LoneSurrogateEscapes.present(in: raw) == !found.isEmpty)
                #expect(LoneSurrogateEscapes.replacedByReplacementCharacter(raw)?.text.count ?? bytes.count == bytes.count)
                _ = JSONScanner.scan(raw)
                _ = JSONScanner.decodeString(raw, 0..<bytes.count)
            }
        }
    }
}
