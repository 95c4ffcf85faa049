import Jansson
import Testing

@Suite("JanssonEncodable")
struct JanssonEncodableTests {
    /// Builds itself and also has the `Encodable` conformance every other encoder uses; both must agree.
    struct Card: JanssonEncodable {
        var id: Int64
        var name: String
        var note: String?
        var open: Bool
        var size: Int
        var inner: Inner

        struct Inner: JanssonEncodable {
            var n: Int64
            func writeMembers(into object: JanssonObjectBuilder) throws { object.set("n", n) }
        }

        enum CodingKeys: String, CodingKey { case id, name, note, open, size, inner }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(note, forKey: .note)
            try container.encode(open, forKey: .open)
            try container.encode(size, forKey: .size)
            try container.encode(inner, forKey: .inner)
        }

        func writeMembers(into object: JanssonObjectBuilder) throws {
            object.set("id", id)
            object.set("name", name)
            object.set("note", note)
            object.set("open", open)
            object.set("size", size)
            try object.set("inner", inner)
        }
    }

    /// The text through the `Encoder` (a `userInfo` entry turns the direct path off).
    func viaEncoder(_ value: some Encodable) throws -> String {
        var encoder = JanssonEncoder()
        encoder.userInfo[CodingUserInfoKey(rawValue: "test")!] = true
        let json = try encoder.encode(value)
        return withExtendedLifetime(json) { JSONWriter.string(of: json.view) }
    }

    @Test("a value that builds itself writes what its Encodable conformance writes, members in order")
    func sameTextBothWays() throws {
        let cards = [
            Card(id: 1, name: "ann", note: nil, open: true, size: -3, inner: .init(n: .max)),
            Card(id: .min, name: "nul\u{0}😀 \"q\"", note: "", open: false, size: 0, inner: .init(n: 0)),
        ]
        for card in cards {
            #expect(try encodedText(card) == viaEncoder(card))
        }
        #expect(try encodedText(cards[0])
            == #"{"id":1,"name":"ann","note":null,"open":true,"size":-3,"inner":{"n":9223372036854775807}}"#)
    }

    @Test("an array of values that build themselves, and a member through the general encoder")
    func arraysAndFallback() throws {
        struct Page: JanssonEncodable {
            var items: [Card.Inner]
            var tags: [String]
            func writeMembers(into object: JanssonObjectBuilder) throws {
                try object.set("items", items)
                try object.set("tags", encoding: tags)
            }
            enum CodingKeys: String, CodingKey { case items, tags }
        }
        let page = Page(items: [.init(n: 1), .init(n: 2)], tags: ["a", "b"])
        #expect(try encodedText(page) == #"{"items":[{"n":1},{"n":2}],"tags":["a","b"]}"#)
        #expect(try encodedText(page) == viaEncoder(page))
        #expect(try encodedText(Page(items: [], tags: [])) == #"{"items":[],"tags":[]}"#)
    }
}
