import Jansson
import Testing

@Suite("JanssonDecoder")
struct JanssonDecoderTests {
    @Test("nested structs, arrays, optionals and enums decode")
    func nested() throws {
        let params = try decode(
            ListParams.self,
            #"{"folder":"sent","limit":20,"filter":{"from":"ann","unread":true},"uids":[1,4294967295],"tags":["a","b"]}"#)
        #expect(params == ListParams(folder: .sent, limit: 20, filter: Filter(from: "ann", unread: true), uids: [1, 4_294_967_295], tags: ["a", "b"]))
    }

    @Test("an optional member that is missing or null decodes as nil")
    func optionals() throws {
        let missing = try decode(ListParams.self, #"{"folder":"inbox","limit":1,"uids":[]}"#)
        #expect(missing.filter == nil && missing.tags == nil)
        let null = try decode(ListParams.self, #"{"folder":"inbox","limit":1,"uids":[],"filter":null,"tags":null}"#)
        #expect(null == missing)
        #expect(try decode(Filter.self, #"{"unread":false,"from":null}"#) == Filter(from: nil, unread: false))
        #expect(try decode(Box<Int?>.self, "{}") == Box(value: nil))
        #expect(try decode([Int?].self, "[1,null,3]") == [1, nil, 3])
    }

    @Test("unknown members, _meta among them, are ignored")
    func unknownMembers() throws {
        let params = try decode(
            ListParams.self, #"{"_meta":{"progressToken":7},"folder":"inbox","extra":[1,{}],"limit":5,"uids":[]}"#)
        #expect(params == ListParams(folder: .inbox, limit: 5, filter: nil, uids: [], tags: nil))
    }

    @Test("a top-level scalar decodes", arguments: [("42", 42), ("-7", -7)])
    func topLevelInteger(text: String, value: Int) throws {
        #expect(try decode(Int.self, text) == value)
    }

    @Test("top-level strings, booleans, nulls and arrays decode")
    func topLevelOthers() throws {
        #expect(try decode(String.self, #""pong""#) == "pong")
        #expect(try decode(Bool.self, "true") == true)
        #expect(try decode(Int?.self, "null") == nil)
        #expect(try decode([String].self, #"["a","b\u0000"]"#) == ["a", "b\u{0}"])
        #expect(try decode(Folder.self, #""sent""#) == .sent)
        #expect(try decode(Priority.self, "2") == .high)
    }

    @Test("Double and Float accept integers as well as reals")
    func numbersAcceptIntegers() throws {
        let narrow = try decode(Narrow.self, #"{"ratio":3,"single":-2}"#)
        #expect(narrow.ratio == 3.0)
        #expect(narrow.single == -2.0)
        #expect(try decode(Double.self, "0.1") == 0.1)
        #expect(try decode([Double].self, "[1,2.5]") == [1.0, 2.5])
    }

    @Test("integer types take their whole range", arguments: [
        (#"{"small":-128,"byte":255,"short":32767,"word":4294967295,"big":9223372036854775807}"#,
         Narrow(small: -128, byte: 255, short: 32767, word: 4_294_967_295, big: 9_223_372_036_854_775_807)),
        (#"{"small":127,"byte":0,"short":-32768,"word":0,"big":0}"#,
         Narrow(small: 127, byte: 0, short: -32768, word: 0, big: 0)),
    ])
    func integerRanges(text: String, expected: Narrow) throws {
        #expect(try decode(Narrow.self, text) == expected)
    }

    @Test("JSONValue members keep member order and integer-vs-real")
    func jsonValueMember() throws {
        let box = try decode(Box<JSONValue>.self, #"{"value":{"z":1,"a":1.0,"m":[null,"s"]}}"#)
        #expect(box.value.objectValue?.keys == ["z", "a", "m"])
        #expect(box.value == .object(["z": .integer(1), "a": .double(1), "m": [nil, "s"]]))
        #expect(try decode(JSONValue.self, "[1,2.0]") == [.integer(1), .double(2)])
    }

    @Test("containers used by hand: nested keyed and unkeyed containers, superDecoder")
    func handmade() throws {
        let value = try decode(Handmade.self, #"{"name":"n","pair":[1,2,3],"meta":{"color":"red"},"super":{"id":9}}"#)
        #expect(value == Handmade(name: "n", first: 1, rest: [2, 3], color: "red", parentID: 9))
    }

    @Test("userInfo reaches init(from:)")
    func userInfo() throws {
        struct Reader: Decodable {
            var seen: String?
            init(from decoder: any Decoder) throws { seen = decoder.userInfo[.init(rawValue: "mode")!] as? String }
        }
        var decoder = JanssonDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "mode")!] = "strict"
        #expect(try decode(Reader.self, "{}", with: decoder).seen == "strict")
    }

    @Test("a struct that decodes itself through a single-value container reads the value at its own path")
    func singleValueWrapper() throws {
        #expect(try decode([Transparent].self, #"[{"unread":true},{"from":"b","unread":false}]"#)
            == [Transparent(inner: Filter(from: nil, unread: true)), Transparent(inner: Filter(from: "b", unread: false))])
        let error = try #require(try fieldError([Transparent].self, #"[{"unread":true},{"unread":"no"}]"#))
        #expect(error == JSONFieldError(field: "[1].unread", expected: "boolean", got: #""no""#))
    }

    @Test("arrays of every element kind report the failing element's index")
    func arrayElementPaths() throws {
        let narrow = try #require(try fieldError(Box<[Int16]>.self, #"{"value":[1,70000]}"#))
        #expect(narrow == JSONFieldError(field: "value[1]", expected: "integer -32768...32767", got: "70000"))
        let structs = try #require(try fieldError(Box<[Filter]>.self, #"{"value":[{"unread":true},{}]}"#))
        #expect(structs == JSONFieldError(field: "value[1].unread", expected: "boolean", got: "nothing"))
        let nested = try #require(try fieldError(Box<[[String]]>.self, #"{"value":[["a"],["b",2]]}"#))
        #expect(nested == JSONFieldError(field: "value[1][1]", expected: "string", got: "2"))
        let notArray = try #require(try fieldError(Box<[String]>.self, #"{"value":"a"}"#))
        #expect(notArray == JSONFieldError(field: "value", expected: "array", got: #""a""#))
        #expect(try decode(Box<[[Int]]>.self, #"{"value":[[1],[],[2,3]]}"#) == Box(value: [[1], [], [2, 3]]))
        #expect(try decode([Float].self, "[1,0.5]") == [1, 0.5])
    }

    @Test("an optional JSONValue is nil for null or missing, and any other value otherwise")
    func optionalJSONValue() throws {
        #expect(try decode(Box<JSONValue?>.self, #"{"value":null}"#) == Box(value: nil))
        #expect(try decode(Box<JSONValue?>.self, #"{}"#) == Box(value: nil))
        #expect(try decode(Box<JSONValue?>.self, #"{"value":[]}"#) == Box(value: .array([])))
    }
}
