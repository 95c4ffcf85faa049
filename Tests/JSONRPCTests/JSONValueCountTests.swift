import Jansson
@testable import JSONRPC
import PropertyBased
import Testing

/// ``JSONValueCount`` counts a text's values without parsing it, so a message of millions of tiny values
/// is refused before jansson builds them.
@Suite("JSON value count")
struct JSONValueCountTests {
    static func count(_ text: String, stoppingAfter limit: Int = 1_000) -> Int {
        Array(text.utf8).withUnsafeBytes { JSONValueCount.count($0, stoppingAfter: limit) }
    }

    @Test("commas and brackets count outside strings only, escaped quotes included")
    func fixed() {
        for (text, values) in [("[]", 2), ("0", 1), (#"{"a":1,"b":[1,2]}"#, 5), (#""a,b[{\",""#, 1), (#"["\\",1]"#, 3),
                               (#"{"k\"}":[{},{}]}"#, 6)] {
            #expect(Self.count(text) == values, "\(text)")
        }
    }

    @Test("the shortest text of one value more than the limit (0,0,…: 2n - 1 bytes) is counted, not let through")
    func shortestOverTheLimit() {
        for limit in [1, 5, 1_000] {
            let over = Array(repeating: "0", count: limit + 1).joined(separator: ",")
            #expect(JSONValueCount.mayExceed(over.utf8.count, limit: limit), "limit \(limit)")
            #expect(Self.count(over, stoppingAfter: limit) > limit)
            let at = Array(repeating: "0", count: limit).joined(separator: ",")
            #expect(!JSONValueCount.mayExceed(at.utf8.count, limit: limit), "limit \(limit)")
        }
    }

    @Test("any document jansson writes: the count is at least its values, and counting stops past the limit")
    func atLeastTheValues() async {
        let scalar = Gen.int(in: 0...5).map { pick -> JSONValue in
            switch pick {
            case 0: .null
            case 1: .bool(true)
            case 2: .integer(Int64(pick) * 1_000_003)
            case 3: .string("a,\"[{}\\\n")
            case 4: .string("")
            default: .double(1.5)
            }
        }
        let document = zip(scalar.array(of: 0...6), Gen.int(in: 0...3)).map { items, shape -> JSONValue in
            switch shape {
            case 0: .array(items)
            case 1: .object(Self.object(items))
            case 2: .array([.array(items), .object(Self.object(items))])
            default: items.first ?? .null
            }
        }
        await propertyCheck(count: 500, input: document) { value in
            let text = value.jsonText()
            let values = Self.values(in: value)
            #expect(Self.count(text) >= values, "\(text)")
            #expect(Self.count(text, stoppingAfter: 2) <= 3)
        }
    }

    /// Members named with commas and brackets, which count for nothing inside their quotes.
    static func object(_ items: [JSONValue]) -> JSONObject {
        var object = JSONObject()
        for (index, item) in items.enumerated() { object["k,\(index)[{"] = item }
        return object
    }

    static func values(in value: JSONValue) -> Int {
        switch value {
        case .array(let items): 1 + items.map { values(in: $0) }.reduce(0, +)
        case .object(let members): 1 + members.values.map { values(in: $0) }.reduce(0, +)
        default: 1
        }
    }
}
