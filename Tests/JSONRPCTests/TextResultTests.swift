import Jansson
import Testing
@testable import JSONRPC

/// A result that writes its own JSON text (`JSONTextEncodable`) reaches the peer as that JSON, by
/// every path a response takes, and reads back as it in process.
@Suite("Results written as text")
struct TextResultTests {
    struct Written: JSONTextEncodable {
        enum CodingKeys: CodingKey { case days, name }

        func writeJSON(into text: inout [UInt8]) throws {
            text.append(contentsOf: #"{"days":[1,{"a":"é\"x"}],"name":null}"#.utf8)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode([JSONValue.integer(1), ["a": "é\"x"]], forKey: .days)
            try container.encodeNil(forKey: .name)
        }
    }

    static let expected = #"{"jsonrpc":"2.0","id":7,"result":{"days":[1,{"a":"é\"x"}],"name":null}}"#

    @Test("the text is copied where the result sits, in the envelope and in a response written from its parts")
    func writtenAsIs() throws {
        let result = try ResultEncoding.encode(Written())
        let id = try JSONParser.parse("7")
        let envelope = OutgoingMessage.response(id: id.view, result: result)
        #expect(JSONWriter.string(of: envelope.view) == Self.expected)
        var text: [UInt8] = []
        withExtendedLifetime((id, result)) {
            ResponseText.append(id: id.view, result: result.view, writer: JSONWriter(), to: &text)
        }
        #expect(String(decoding: text, as: UTF8.self) == Self.expected)
    }

    @Test("in process the result reads back as the JSON it wrote, the same as its Encodable form")
    func readsBack() throws {
        let result = try ResultEncoding.encode(Written())
        var other = JanssonEncoder()
        other.userInfo[CodingUserInfoKey(rawValue: "general")!] = true
        let general = try other.encode(Written())
        #expect(JSONValue(result.view) == JSONValue(general.view))
        let text = try JSONParser.parse(#"{"days":[1,{"a":"é\"x"}],"name":null}"#)
        #expect(JSONValue(result.view) == withExtendedLifetime(text) { JSONValue(text.view) })
    }
}
