import Jansson
import Testing

@Suite("JSONFieldError from JanssonDecoder")
struct JSONFieldErrorTests {
    static let valid = #"{"folder":"inbox","limit":10,"uids":[1,2]}"#

    /// `valid` with one member replaced (or removed, with `nil`).
    static func params(_ name: String, _ json: String?) -> String {
        var members = [("folder", #""inbox""#), ("limit", "10"), ("uids", "[1,2]")]
        if let index = members.firstIndex(where: { $0.0 == name }) {
            if let json { members[index].1 = json } else { members.remove(at: index) }
        } else if let json {
            members.append((name, json))
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static let cases: [(params: String, field: String, expected: String, got: String)] = [
        ("3", "", "object", "3"),
        ("[]", "", "object", "[]"),
        (params("limit", nil), "limit", "integer", "nothing"),
        (params("limit", #""ten""#), "limit", "integer", #""ten""#),
        (params("limit", "5.0"), "limit", "integer", "5.0"),
        (params("limit", "null"), "limit", "integer", "null"),
        (params("limit", "true"), "limit", "integer", "true"),
        (params("folder", #""spam""#), "folder", #"one of "inbox", "sent""#, #""spam""#),
        (params("folder", "3"), "folder", #"one of "inbox", "sent""#, "3"),
        (params("folder", nil), "folder", #"one of "inbox", "sent""#, "nothing"),
        (params("uids", #"{"a":1}"#), "uids", "array", #"{"a":1}"#),
        (params("uids", nil), "uids", "array", "nothing"),
        (params("uids", "[1,-2]"), "uids[1]", "integer 0...4294967295", "-2"),
        (params("uids", #"[1,2,"3"]"#), "uids[2]", "integer 0...4294967295", #""3""#),
        (params("filter", "7"), "filter", "object", "7"),
        (params("filter", #"{"from":"x"}"#), "filter.unread", "boolean", "nothing"),
        (params("filter", #"{"unread":1}"#), "filter.unread", "boolean", "1"),
        (params("filter", #"{"unread":true,"from":5}"#), "filter.from", "string", "5"),
        (params("tags", #"["a",null]"#), "tags[1]", "string", "null"),
    ]

    @Test("each kind of mismatch names the field, what was expected and what came", arguments: cases)
    func mismatch(params: String, field: String, expected: String, got: String) throws {
        let error = try #require(try fieldError(ListParams.self, params))
        #expect(error == JSONFieldError(field: field, expected: expected, got: got))
    }

    @Test("numeric types name their range when a value falls outside it", arguments: [
        (#"{"small":128}"#, "small", "integer -128...127", "128"),
        (#"{"small":-129}"#, "small", "integer -128...127", "-129"),
        (#"{"byte":256}"#, "byte", "integer 0...255", "256"),
        (#"{"byte":-1}"#, "byte", "integer 0...255", "-1"),
        (#"{"short":40000}"#, "short", "integer -32768...32767", "40000"),
        (#"{"word":4294967296}"#, "word", "integer 0...4294967295", "4294967296"),
        (#"{"big":-1}"#, "big", "integer 0...9223372036854775807", "-1"),
        (#"{"ratio":"1.5"}"#, "ratio", "number", #""1.5""#),
    ])
    func ranges(params: String, field: String, expected: String, got: String) throws {
        let error = try #require(try fieldError(Narrow.self, params))
        #expect(error == JSONFieldError(field: field, expected: expected, got: got))
    }

    @Test("a Float names its range when a number is too large for it")
    func floatRange() throws {
        let error = try #require(try fieldError(Narrow.self, #"{"single":-1e39}"#))
        #expect(error.field == "single")
        #expect(error.expected == "number -3.4028235e+38...3.4028235e+38")
        #expect(try parse(error.got) == .double(-1e39))
    }

    @Test("an Int-backed CaseIterable enum lists its raw values")
    func intEnum() throws {
        let error = try #require(try fieldError(Box<Priority>.self, #"{"value":3}"#))
        #expect(error == JSONFieldError(field: "value", expected: "one of 1, 2", got: "3"))
    }

    @Test("a DecodingError thrown by a custom init(from:) becomes a field error at its coding path")
    func decodingError() throws {
        let error = try #require(try fieldError(Schedule.self, #"{"days":["2024-05","soon"]}"#))
        #expect(error == JSONFieldError(field: "days[1]", expected: #"a month such as "2024-05""#, got: #""soon""#))
        let typeError = try #require(try fieldError(Schedule.self, #"{"days":[7]}"#))
        #expect(typeError == JSONFieldError(field: "days[0]", expected: "string", got: "7"))
    }

    @Test("any other error thrown by init(from:) is reported at the value that threw it")
    func otherError() throws {
        let error = try #require(try fieldError(HasPicky.self, #"{"inner":[{"k":1}]}"#))
        #expect(error == JSONFieldError(field: "inner[0]", expected: "a ready value", got: #"{"k":1}"#))
    }

    @Test("paths run through nested keyed and unkeyed containers")
    func nestedContainerPath() throws {
        let error = try #require(try fieldError(DeepPair.self, #"{"meta":{"pairs":[1,"x"]}}"#))
        #expect(error == JSONFieldError(field: "meta.pairs[1]", expected: "integer", got: #""x""#))
        let short = try #require(try fieldError(DeepPair.self, #"{"meta":{"pairs":[1]}}"#))
        #expect(short == JSONFieldError(field: "meta.pairs[1]", expected: "integer", got: "nothing"))
        let notArray = try #require(try fieldError(DeepPair.self, #"{"meta":{"pairs":"no"}}"#))
        #expect(notArray == JSONFieldError(field: "meta.pairs", expected: "array", got: #""no""#))
    }

    @Test("a missing JSONValue member expects any JSON value")
    func missingJSONValue() throws {
        let error = try #require(try fieldError(Box<JSONValue>.self, "{}"))
        #expect(error == JSONFieldError(field: "value", expected: "any JSON value", got: "nothing"))
    }

    @Test("a long value is cut at 80 characters in got")
    func longGot() throws {
        let long = String(repeating: "x", count: 100)
        let error = try #require(try fieldError(Box<Int>.self, "{\"value\":\"\(long)\"}"))
        #expect(error.got == "\"" + String(repeating: "x", count: 79) + "…")
    }

    @Test("description reads as a sentence, with params for the root")
    func description() {
        #expect(JSONFieldError(field: "limit", expected: "integer 1...500", got: #""ten""#).description
            == #"limit: expected integer 1...500, got "ten""#)
        #expect(JSONFieldError(field: "", expected: "object", got: "3").description == "params: expected object, got 3")
    }

    @Test("outOfRange writes the value as JSON text")
    func outOfRange() {
        #expect(JSONFieldError.outOfRange(field: "limit", expected: "integer 1...500", got: 600)
            == JSONFieldError(field: "limit", expected: "integer 1...500", got: "600"))
        #expect(JSONFieldError.outOfRange(field: "folder", expected: "a folder that exists", got: "Old")
            == JSONFieldError(field: "folder", expected: "a folder that exists", got: #""Old""#))
        #expect(JSONFieldError.outOfRange(field: "ratio", expected: "number 0...1", got: 1.5).got == "1.5")
    }
}
