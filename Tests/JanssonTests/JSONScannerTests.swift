import Jansson
import Testing

/// The strict scanner agrees with jansson: where jansson parses, it finds valid JSON and nothing
/// unholdable; where it finds valid JSON with unholdable tokens, jansson refuses exactly those; where
/// jansson finds the text invalid, so does the scanner. Random and mutated inputs; none may trap.
@Suite("JSONScanner")
struct JSONScannerTests {
    /// SplitMix64: reproducible random inputs.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    static let numbers = ["0", "-0", "7", "-12", "1.5", "-0.25", "1e2", "1E+2", "2.5e-3", "9223372036854775807",
                          "-9223372036854775808", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                          "123456789012345678901234567890", "1e400", "-1e400", "1e-400", "0.1000000000000000000001"]
    static let strings = [#""""#, #""a""#, #""\u0000""#, #""\n\t\"\\\/""#, #""é😀""#, #""\ud83d\ude00""#, #""x\u0041y""#, #""cut \ud83d""#]
    static let keys = [#""id""#, #""params""#, #""a""#, #""\u0000""#, #""a\u0000b""#, #""\u0069d""#, #""é""#, #""\udcff""#]

    static func value(_ random: inout Random, depth: Int) -> String {
        let space = random.pick(["", "", " ", "\n", "\t ", "\r\n"])
        switch depth > 4 ? random.below(4) : random.below(6) {
        case 0: return random.pick(numbers)
        case 1: return random.pick(strings)
        case 2: return random.pick(["true", "false", "null"])
        case 3: return random.pick(numbers)
        case 4:
            let count = random.below(4)
            return "[" + space + (0..<count).map { _ in value(&random, depth: depth + 1) }.joined(separator: "," + space) + "]"
        default:
            let count = random.below(4)
            return "{" + (0..<count).map { _ in random.pick(keys) + space + ":" + value(&random, depth: depth + 1) }
                .joined(separator: "," + space) + space + "}"
        }
    }

    static func mutate(_ text: [UInt8], _ random: inout Random) -> [UInt8] {
        var bytes = text
        let interesting: [UInt8] = Array("{}[],:\"\\0123456789eE.+-tfnu \n".utf8) + [0x00, 0x1F, 0x80, 0xC0, 0xED, 0xF4, 0xFF]
        for _ in 0..<(1 + random.below(3)) {
            guard !bytes.isEmpty else { break }
            let position = random.below(bytes.count)
            switch random.below(4) {
            case 0: bytes[position] = random.pick(interesting)
            case 1: bytes.insert(random.pick(interesting), at: position)
            case 2: bytes.remove(at: position)
            default: bytes = Array(bytes[..<position])
            }
        }
        return bytes
    }

    /// Checks the scanner against jansson on one input.
    static func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let scan = JSONScanner.scan(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            _ = try JSONParser.parse(bytes)
            #expect(scan != nil && scan?.unholdable.isEmpty == true, "jansson parses \(text) but the scanner says \(String(describing: scan))",
                    sourceLocation: sourceLocation)
        } catch {
            let lone = bytes.withUnsafeBytes { LoneSurrogateEscapes.present(in: $0) }
            switch error.kind {
            case .invalid where lone:
                // Lone surrogate escapes are grammatical JSON jansson refuses: the scanner names them.
                // With U+FFFD in their place the text is JSON exactly when the scanner took it, which
                // agrees with jansson there.
                let replaced = bytes.withUnsafeBytes { LoneSurrogateEscapes.replacedByReplacementCharacter($0)?.text } ?? bytes
                #expect((scan == nil) == (JSONScanner.scan(replaced) == nil), "\(text)", sourceLocation: sourceLocation)
                expectAgreement(replaced, sourceLocation: sourceLocation)
                if let scan {
                    #expect(scan.unholdable.contains { $0.kind == .loneSurrogate || $0.kind == .loneSurrogateInMemberName },
                            "jansson refuses \(text) (\(error)); the scanner names no lone surrogate", sourceLocation: sourceLocation)
                }
            case .invalid, .tooDeep:
                #expect(scan == nil, "jansson refuses \(text) (\(error)) but the scanner accepts it", sourceLocation: sourceLocation)
            case .numberOutOfRange, .nulInMemberName:
                // jansson stops at the first problem; the text may be invalid further on.
                if let scan {
                    #expect(!scan.unholdable.isEmpty, "jansson cannot hold \(text) (\(error)); the scanner found nothing", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("random documents: the scanner agrees with jansson")
    func randomDocuments() {
        var random = Random(state: 0x5EED)
        for _ in 0..<3000 {
            Self.expectAgreement(Array(Self.value(&random, depth: 0).utf8))
        }
    }

    @Test("mutated documents: the scanner agrees with jansson, and never traps")
    func mutatedDocuments() {
        var random = Random(state: 0xC0FFEE)
        for _ in 0..<6000 {
            let text = Array(Self.value(&random, depth: 0).utf8)
            Self.expectAgreement(Self.mutate(text, &random))
        }
    }

    @Test("random bytes: the scanner agrees with jansson, and never traps")
    func randomBytes() {
        var random = Random(state: 42)
        let alphabet: [UInt8] = Array("{}[],:\" \\0123456789-.eEtrufalsn".utf8) + [0x00, 0x0A, 0xC3, 0xA9, 0xFF]
        for _ in 0..<4000 {
            let bytes = (0..<random.below(12)).map { _ in random.pick(alphabet) }
            Self.expectAgreement(bytes)
        }
    }

    @Test("edge cases agree with jansson", arguments: [
        "", " ", "1", "-", "01", "1.", ".5", "1e", "+1", "[1,]", "{\"a\":1,}", "[", "]", "{\"a\"}", "\"\\ud800\"",
        "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud83d\\ude00\"", "\"\u{7F}\"", "\"\\x\"", "nul", "truex", "[1] 2",
        "{\"\\u0000\":1}", "[9223372036854775808]", "[1e400]", "\"\\u00e9\"", "\u{FEFF}1", "[-9223372036854775809, x]",
    ])
    func edgeCases(text: String) {
        Self.expectAgreement(Array(text.utf8))
    }

    @Test("invalid UTF-8 is refused as jansson refuses it: overlongs, surrogates, beyond U+10FFFF, truncated")
    func invalidUTF8() {
        for bytes: [UInt8] in [[0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
                               [0xC3], [0xE2, 0x82], [0x80], [0xC3, 0xA9], [0xF0, 0x9F, 0x98, 0x80]] {
            Self.expectAgreement([0x22] + bytes + [0x22])
        }
    }

    @Test("nesting: as deep as jansson parses, and no deeper")
    func depth() {
        let limit = JSONParser.maximumDepth
        for depth in [limit - 1, limit, limit + 1] {
            Self.expectAgreement(Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
            Self.expectAgreement(Array((String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)).utf8))
        }
    }

    @Test("finds each message's id and params, the last of duplicates, escaped names included, and where the unholdable tokens are")
    func messages() throws {
        let text = #"[{"id":1,"params":{"a":[0,99999999999999999999]}},{"\u0069d":"x","id":"y","params":[1e999]},3]"#
        let scan = try #require(JSONScanner.scan(Array(text.utf8)))
        let bytes = Array(text.utf8)
        func slice(_ range: Range<Int>?) -> String? { range.map { String(decoding: bytes[$0], as: UTF8.self) } }
        #expect(scan.isArray)
        #expect(scan.messages.count == 3)
        #expect(slice(scan.messages[0].id) == "1")
        #expect(slice(scan.messages[0].params) == #"{"a":[0,99999999999999999999]}"#)
        #expect(slice(scan.messages[1].id) == #""y""#)
        #expect(slice(scan.messages[1].params) == "[1e999]")
        #expect(scan.messages[2].isObject == false)
        #expect(scan.unholdable.map(\.kind) == [.integerBeyond64Bits, .realBeyondDouble])
        #expect(scan.unholdable[0].path == [.index(0), .key("params"), .key("a"), .index(1)])
        #expect(scan.unholdable[1].path == [.index(1), .key("params"), .index(0)])
        #expect(slice(scan.messages[2].range) == "3")
    }

    @Test("finds a response's result and error, nested ones aside")
    func responseMembers() throws {
        let text = #"[{"jsonrpc":"2.0","id":1,"result":{"error":2,"result":[3]}},{"id":2,"error":{"code":-1,"message":"m"}}]"#
        let bytes = Array(text.utf8)
        let scan = try #require(JSONScanner.scan(bytes))
        func slice(_ range: Range<Int>?) -> String? { range.map { String(decoding: bytes[$0], as: UTF8.self) } }
        #expect(slice(scan.messages[0].result) == #"{"error":2,"result":[3]}"#)
        #expect(scan.messages[0].error == nil)
        #expect(slice(scan.messages[1].error) == #"{"code":-1,"message":"m"}"#)
        #expect(scan.messages[1].result == nil)
    }

    @Test("a real reads back exactly when the writer's shortest form states the same number", arguments: [
        ("1e2", true), ("100.0", true), ("0.1", true), ("1.50", true), ("-2.25", true), ("1E-7", true), ("0.0", true),
        ("0.1000000000000000000001", false), ("9007199254740993.0", false), ("2.50000000000000000001", false),
        ("1e400", false), ("123456789012345678.0", false),
    ])
    func realsReadBack(token: String, exact: Bool) {
        #expect(Array(token.utf8).withUnsafeBytes { JSONNumberText.realReadsBackExactly($0) } == exact)
    }
}
