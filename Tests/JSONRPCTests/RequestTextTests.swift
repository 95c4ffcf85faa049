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

    @Test("params given as members come out as the params object would", arguments: methods)
    func membersSameAsObject(method: String) throws {
        let writer = JSONWriter()
        let names = ["name", "arguments", "_meta", "", "a\"b", "é", "tab\there"]
        let values = try [#""echo""#, #"{"text":"hello","n":1.5e300}"#, #"{"progressToken":"p1"}"#, "[]", "null", #""\u00e9\n""#, "7"]
            .map { try JSONParser.parse($0) }
        for count in 0...names.count {
            let members = (0..<count).map { (key: names[$0], value: values[$0].view) }
            let object = JanssonValue.object()
            for member in members { object.set(member.key, JanssonValue(retaining: member.value.pointer)) }
            var body: [UInt8] = []
            RequestText.append(id: 42, method: method, members: members, writer: writer, to: &body)
            let envelope = OutgoingMessage.request(id: 42, method: method, params: object)
            #expect(String(decoding: body, as: UTF8.self) == JSONWriter.string(of: envelope.view))
        }
    }
}
