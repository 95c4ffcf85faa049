import Jansson
import Testing

/// Hides the jansson coders behind plain `Decoder` and `Encoder` wrappers, so `JSONValue` has to go
/// through containers, as it does with any other coder.
struct Opaque<Wrapped: Codable & Equatable>: Codable, Equatable {
    var value: Wrapped

    init(_ value: Wrapped) { self.value = value }

    init(from decoder: any Decoder) throws { value = try Wrapped(from: HiddenDecoder(base: decoder)) }

    func encode(to encoder: any Encoder) throws { try value.encode(to: HiddenEncoder(base: encoder)) }

    struct HiddenDecoder: Decoder {
        var base: any Decoder
        var codingPath: [any CodingKey] { base.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { base.userInfo }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { try base.container(keyedBy: type) }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }
    }

    struct HiddenEncoder: Encoder {
        var base: any Encoder
        var codingPath: [any CodingKey] { base.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { base.userInfo }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { base.container(keyedBy: type) }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { base.unkeyedContainer() }
        func singleValueContainer() -> any SingleValueEncodingContainer { base.singleValueContainer() }
    }
}

@Suite("JSONValue as Codable")
struct JSONValueCodableTests {
    static let documents = [
        #"{"z":1,"a":[true,null,2.5,"s"],"m":{"k":-1,"j":1.0}}"#,
        #"[1,2.0,"x\u0000",{}]"#,
        "-9223372036854775808",
        "0.1",
        #""😀""#,
        "null",
        "false",
    ]

    @Test("decodes and encodes directly with the jansson coders", arguments: documents)
    func direct(text: String) throws {
        let value = try decode(JSONValue.self, text)
        #expect(value == (try parse(text)))
        #expect(try encodedText(value) == text)
    }

    @Test("decodes and encodes through containers, keeping order and integer-vs-real", arguments: documents)
    func throughContainers(text: String) throws {
        let value = try decode(Opaque<JSONValue>.self, text).value
        #expect(value == (try parse(text)))
        #expect(try encodedText(Opaque(value)) == text)
    }

    @Test("a non-finite double inside a JSONValue is refused with its path, on both routes")
    func nonFinite() throws {
        let value: JSONValue = ["ok": 1, "list": [1, .double(.nan)]]
        for encodable in [Box(value: value) as any Encodable, Box(value: Opaque(value))] {
            let error = try #require(throws: EncodingError.self) { try JanssonEncoder().encode(encodable) }
            guard case .invalidValue(_, let context) = error else { throw error }
            #expect(context.debugDescription == "value.list[1]: Double nan cannot be written as JSON, which has no NaN or infinity")
        }
    }
}
