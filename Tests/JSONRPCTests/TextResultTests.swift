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

    @Test("a response holding such a result is framed as the general path frames it, for every id and framing",
          arguments: ["7", "-3", #""a\u00e9\n""#, "1.50", "null"], Framing.allCases)
    func framedFromItsParts(idText: String, framing: Framing) throws {
        let result = try ResultEncoding.encode(Written())
        // A real id is echoed as it was sent (a raw number), as the reader keeps it.
        let id = idText == "1.50" ? RawNumber.make(Array(idText.utf8)) : try JSONParser.parse(idText)
        let message = OutgoingMessage.response(id: id.view, result: result)
        let writer = JSONWriter()
        var general: [UInt8] = []
        writer.withBytes(of: message.view) { framing.appendFrame(body: $0, to: &general) }
        var direct: [UInt8] = Array("before".utf8)
        #expect(ResponseText.appendFrame(ofRawResponse: message.view, framing: framing, writer: writer, to: &direct))
        #expect(direct == Array("before".utf8) + general)
        let body = String(decoding: general, as: UTF8.self)
        #expect(body.contains(#"{"jsonrpc":"2.0","id":\#(idText == "1.50" ? "1.50" : JSONWriter.string(of: id.view)),"result":{"days""#))
    }

    @Test("any other message is left to the general path")
    func otherMessagesNotTaken() throws {
        let id = try JSONParser.parse("7")
        let plain = OutgoingMessage.response(id: id.view, result: try JanssonEncoder().encode(["a": 1]))
        let failure = OutgoingMessage.errorResponse(id: id.view, error: .invalidParams("no"))
        let notification = OutgoingMessage.notification(method: "x", params: try ResultEncoding.encode(Written()))
        for message in [plain, failure, notification] {
            var output: [UInt8] = []
            #expect(!ResponseText.appendFrame(ofRawResponse: message.view, framing: .lsp, writer: JSONWriter(), to: &output))
            #expect(output.isEmpty)
        }
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
