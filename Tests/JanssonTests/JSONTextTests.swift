import Jansson
import Testing

@Suite("JSON text through jansson and JSONValue")
struct JSONTextTests {
    @Test("64-bit integers at both ends of the range read and write back exactly")
    func integerExtremes() throws {
        let text = "[-9223372036854775808,9223372036854775807,0,-1]"
        let value = try parse(text)
        #expect(value == .array([.integer(.min), .integer(.max), .integer(0), .integer(-1)]))
        #expect(written(value) == text)
    }

    @Test("an integer beyond 64 bits is a parse error, in either direction")
    func integerOverflow() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse("9223372036854775808") }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("-9223372036854775809") }
        #expect(throws: JSONParseError.self) { try JSONParser.parse("[1, 18446744073709551616]") }
    }

    static let reals: [(text: String, value: Double)] = [
        ("0.1", 0.1),
        ("0.30000000000000004", 0.1 + 0.2),
        ("1e-7", 1e-7),
        ("1.5", 1.5),
        ("100.0", 100.0),
        ("-0.0", -0.0),
        ("5e-324", Double.leastNonzeroMagnitude),
        ("1e22", 1e22),
        ("123456789012.5", 123456789012.5),
    ]

    @Test("a document with a single real reads it exactly and writes it in its shortest form", arguments: reals)
    func realShortestForm(text: String, value: Double) throws {
        let parsed = try parse(text)
        guard case .double(let read) = parsed else {
            Issue.record("\(text) read as \(parsed.kind)")
            return
        }
        #expect(read.bitPattern == value.bitPattern)
        #expect(written(parsed) == text)
    }

    @Test("1e300 reads exactly and writes back to the same double")
    func largeReal() throws {
        let parsed = try parse("1e300")
        #expect(parsed == .double(1e300))
        #expect(try parse(written(parsed)) == .double(1e300))
    }

    @Test("1e300 writes in its shortest form")
    func largeRealShortest() throws {
        #expect(try rewritten("1e300") == "1e300")
        #expect(try rewritten("[1e300,0.30000000000000004,0.1]") == "[1e300,0.30000000000000004,0.1]")
    }

    @Test("integers and reals stay apart: 1 and 1.0 both come back as written")
    func integerVersusReal() throws {
        let value = try parse(#"{"i":1,"r":1.0,"n":-5,"x":2.5}"#)
        #expect(value == .object(["i": .integer(1), "r": .double(1), "n": .integer(-5), "x": .double(2.5)]))
        #expect(written(value) == #"{"i":1,"r":1.0,"n":-5,"x":2.5}"#)
    }

    @Test("\\u0000 inside a string survives reading and writing")
    func embeddedNul() throws {
        let value = try parse(#""a\u0000b""#)
        let string = try #require(value.stringValue)
        #expect(string.count == 3)
        #expect(Array(string.unicodeScalars) == ["a", "\u{0}", "b"])
        #expect(written(value) == #""a\u0000b""#)
        #expect(written(.string("x\u{0}")) == #""x\u0000""#)
    }

    @Test("a character outside the BMP reads the same raw or as an escaped surrogate pair")
    func nonBMP() throws {
        let raw = try parse("\"😀\"")
        let escaped = try parse(#""\ud83d\ude00""#)
        #expect(raw == .string("😀"))
        #expect(escaped == .string("😀"))
        #expect(raw.stringValue?.unicodeScalars.first?.value == 0x1F600)
        #expect(written(escaped) == "\"😀\"")
    }

    @Test("object members keep the order they were received in")
    func memberOrder() throws {
        let value = try parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(written(value) == #"{"z":1,"a":2,"m":3}"#)
        #expect(try rewritten(#"{"b":{"y":[],"x":{}},"a":null}"#) == #"{"b":{"y":[],"x":{}},"a":null}"#)
    }

    @Test("invalid UTF-8 is a parse error")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22] as [UInt8]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x22] as [UInt8]) }
    }

    @Test("a lone surrogate escape is a parse error", arguments: [#""\ud83d""#, #""\ude00""#, #""\ud83dx""#])
    func loneSurrogate(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("trailing garbage after the value is a parse error, with its place", arguments: ["{} x", "[1]]", "1 2", "\"a\"b"])
    func trailingGarbage(text: String) throws {
        let error = try #require(throws: JSONParseError.self) { try JSONParser.parse(text) }
        #expect(error.line == 1)
        #expect(error.column > 1)
    }

    @Test("scalars are accepted at the top level")
    func topLevelScalars() throws {
        #expect(try parse("42") == .integer(42))
        #expect(try parse("\"pong\"") == .string("pong"))
        #expect(try parse("null") == .null)
        #expect(try parse("true") == .bool(true))
    }
}
