import Jansson
import Testing
@testable import JSONRPC

/// A request written from its parts must be the bytes jansson writes for the envelope object.
@Suite("Request text")
struct RequestTextTests {
    static let methods = ["tools/call", "ping", "", "a\"b\\c", "tab\there", "é ü", "del\u{7F}", "nul\u{0}x"]
    static let params: [String?] = [nil, #"{}"#, #"{"name":"echo","arguments":{"text":"hello","n":1.5e300}}"#, #"[1,0.1,null]"#]

    @Test("methods and params of every kind come out as the envelope object would", arguments: methods)
    func sameAsEnvelope(method: String) throws {
        let writer = JSONWriter()
        for id: Int64 in [1, 0, -9_223_372_036_854_775_808, 9_223_372_036_854_775_807] {
            for text in Self.params {
                let value = try text.map { try JSONParser.parse($0) }
                var body: [UInt8] = []
                withExtendedLifetime(value) {
                    RequestText.append(id: id, method: method, params: value?.view, writer: writer, to: &body)
                }
                let envelope = OutgoingMessage.request(id: id, method: method, params: value)
                #expect(String(decoding: body, as: UTF8.self) == JSONWriter.string(of: envelope.view))
            }
        }
    }
}
