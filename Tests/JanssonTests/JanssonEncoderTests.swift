import Jansson
import Testing

@Suite("JanssonEncoder")
struct JanssonEncoderTests {
    struct Ordered: Encodable {
        var z = 1
        var a = "two"
        var m = [3.5, 4]
    }

    @Test("members come out in the order they are encoded")
    func memberOrder() throws {
        #expect(try encodedText(Ordered()) == #"{"z":1,"a":"two","m":[3.5,4.0]}"#)
    }

    @Test("a dictionary's members come out sorted by key (UTF-8 order) at every depth; a struct's keep their order")
    func dictionariesSorted() throws {
        struct Holder: Encodable {
            var z = 0
            var people: [String: [String: Bool]]
            var list: [[String: Int]]
            var byNumber: [Int: String]
        }
        // Enough keys that the dictionary's own order is not sorted (it is seeded per process).
        let keys = (0..<40).map { "k\($0)" } + ["", "Z", "a", "é", "ä", "p10", "p2"]
        let flat = Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) })
        let sortedKeys = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let text = try encodedText(flat)
        #expect(text == "{" + sortedKeys.map { #""\#($0)":1"# }.joined(separator: ",") + "}")
        let holder = Holder(people: ["p2": ["owner": true, "attendee": true], "p10": ["chair": false]],
                            list: [["b": 2, "a": 1]], byNumber: [10: "ten", 9: "nine"])
        #expect(try encodedText(holder)
            == #"{"z":0,"people":{"p10":{"chair":false},"p2":{"attendee":true,"owner":true}},"list":[{"a":1,"b":2}],"byNumber":{"10":"ten","9":"nine"}}"#)
    }

    @Test("nested structs, arrays, optionals and enums encode")
    func nested() throws {
        let params = ListParams(folder: .sent, limit: 20, filter: Filter(from: "ann", unread: true), uids: [1, 4_294_967_295], tags: nil)
        #expect(try encodedText(params)
            == #"{"folder":"sent","limit":20,"filter":{"from":"ann","unread":true},"uids":[1,4294967295]}"#)
        #expect(try encodedText(Box(value: Priority.high)) == #"{"value":2}"#)
        #expect(try encodedText(Schedule(days: [Day(year: 2024, month: 5)])) == #"{"days":["2024-5"]}"#)
    }

    @Test("encodeIfPresent(nil) leaves the member out; encodeNil writes null")
    func nils() throws {
        struct Explicit: Encodable {
            enum Keys: String, CodingKey { case gone, null }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encodeIfPresent(Int?.none, forKey: .gone)
                try container.encodeNil(forKey: .null)
            }
        }
        #expect(try encodedText(Explicit()) == #"{"null":null}"#)
        #expect(try encodedText(Filter(from: nil, unread: false)) == #"{"unread":false}"#)
        #expect(try encodedText([1, nil, 3] as [Int?]) == "[1,null,3]")
    }

    @Test("a top-level scalar is a valid result")
    func topLevelScalars() throws {
        #expect(try encodedText("pong") == #""pong""#)
        #expect(try encodedText(42) == "42")
        #expect(try encodedText(Int?.none) == "null")
        #expect(try encodedText(true) == "true")
        #expect(try encodedText(1.5) == "1.5")
        #expect(try encodedText(Folder.inbox) == #""inbox""#)
        #expect(try encodedText([String]()) == "[]")
        #expect(try encodedText("a\u{0}😀") == "\"a\\u0000😀\"")
    }

    @Test("a value that encodes nothing is an empty object")
    func empty() throws {
        struct Nothing: Encodable {}
        #expect(try encodedText(Nothing()) == "{}")
        #expect(try encodedText(Box(value: Nothing())) == #"{"value":{}}"#)
    }

    @Test("64-bit integers encode exactly; UInt64 above Int64.max is refused")
    func wideIntegers() throws {
        #expect(try encodedText([Int64.min, Int64.max]) == "[-9223372036854775808,9223372036854775807]")
        #expect(try encodedText(UInt64(Int64.max)) == "9223372036854775807")
        let error = try #require(throws: EncodingError.self) { try JanssonEncoder().encode(Box(value: [UInt64(1), .max])) }
        guard case .invalidValue(_, let context) = error else { throw error }
        #expect(context.codingPath.map(\.stringValue) == ["value", "Index 1"])
        #expect(context.debugDescription == "value[1]: UInt64 18446744073709551615 cannot be written as JSON, whose integers are signed 64-bit")
    }

    @Test("NaN and infinity are refused, naming the path", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(value: Double) throws {
        struct Stats: Encodable {
            var count = 1
            var ratio: Double
        }
        let error = try #require(throws: EncodingError.self) { try JanssonEncoder().encode(Stats(ratio: value)) }
        guard case .invalidValue(_, let context) = error else { throw error }
        #expect(context.codingPath.map(\.stringValue) == ["ratio"])
        #expect(context.debugDescription == "ratio: Double \(value) cannot be written as JSON, which has no NaN or infinity")
        #expect(throws: EncodingError.self) { try JanssonEncoder().encode(value) }
        #expect(throws: EncodingError.self) { try JanssonEncoder().encode([Float(value)]) }
    }

    @Test("a non-finite element of a [Double] is refused with its index")
    func nonFiniteElement() throws {
        let error = try #require(throws: EncodingError.self) { try JanssonEncoder().encode(Box(value: [1.0, .infinity])) }
        guard case .invalidValue(_, let context) = error else { throw error }
        #expect(context.debugDescription == "value[1]: Double inf cannot be written as JSON, which has no NaN or infinity")
        #expect(try encodedText(Box(value: [1.0, -0.0])) == #"{"value":[1.0,-0.0]}"#)
    }

    @Test("a struct that encodes itself through a single-value container writes what it wraps")
    func singleValueWrapper() throws {
        #expect(try encodedText([Transparent(inner: Filter(from: "b", unread: false))]) == #"[{"from":"b","unread":false}]"#)
        #expect(try encodedText(Box(value: [[Int16(1)], []])) == #"{"value":[[1],[]]}"#)
    }

    @Test("a Float is written with its own shortest digits")
    func float() throws {
        #expect(try encodedText([Float(0.1), 1.5, 100]) == "[0.1,1.5,100.0]")
    }

    @Test("nested containers and superEncoder write where they were made")
    func containers() throws {
        struct Handmade: Encodable {
            enum Keys: String, CodingKey { case name, pair, meta, base }
            enum MetaKeys: String, CodingKey { case color, sizes }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("n", forKey: .name)
                var pair = container.nestedUnkeyedContainer(forKey: .pair)
                try pair.encode(1)
                var inner = pair.nestedContainer(keyedBy: MetaKeys.self)
                try inner.encode(true, forKey: .color)
                var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
                try meta.encode("red", forKey: .color)
                var sizes = meta.nestedUnkeyedContainer(forKey: .sizes)
                try sizes.encode(UInt8(7))
                try Filter(from: "x", unread: true).encode(to: container.superEncoder(forKey: .base))
                try 5.encode(to: container.superEncoder())
                try pair.encode("last")
                let elementEncoder = pair.superEncoder()
                var single = elementEncoder.singleValueContainer()
                try single.encode("super")
            }
        }
        #expect(try encodedText(Handmade()) == #"{"name":"n","pair":[1,{"color":true},"last","super"],"meta":{"color":"red","sizes":[7]},"base":{"from":"x","unread":true},"super":5}"#)
    }

    @Test("a coding path reaches the encoder through nested containers")
    func codingPath() throws {
        struct Probe: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.codingPath.map(\.stringValue).joined(separator: "/"))
            }
        }
        #expect(try encodedText(Box(value: [Box(value: Probe())])) == #"{"value":[{"value":"value/Index 0/value"}]}"#)
    }

    @Test("userInfo reaches encode(to:)")
    func userInfo() throws {
        struct Mode: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.userInfo[CodingUserInfoKey(rawValue: "mode")!] as? String ?? "none")
            }
        }
        var encoder = JanssonEncoder()
        encoder.userInfo[CodingUserInfoKey(rawValue: "mode")!] = "strict"
        let json = try encoder.encode(Mode())
        #expect(withExtendedLifetime(json) { json.view.string } == "strict")
    }

    @Test("what the encoder writes, the decoder reads back")
    func roundTrip() throws {
        let params = ListParams(folder: .inbox, limit: 3, filter: Filter(from: "a\u{0}b", unread: false), uids: [0, 9], tags: ["😀"])
        let json = try JanssonEncoder().encode(params)
        let decoded = try withExtendedLifetime(json) { try JanssonDecoder().decode(ListParams.self, from: json.view) }
        #expect(decoded == params)
    }
}
