import Jansson
import Testing
@testable import JSONRPC

/// A response written from its parts must be the bytes jansson writes for the envelope object.
@Suite("Response text")
struct ResponseTextTests {
    static let ids = [#"1"#, #"-9223372036854775808"#, #"9223372036854775807"#, #"0"#, #""a\"b\u00e9\u0000""#, #"null"#, #"0.1"#, #"1.5e300"#]
    static let results = [#""pong""#, #"null"#, #"{"payload":[1.5,0.1,1e300,"x"],"n":-3}"#, #"[]"#, #"{"id":1e2}"#]

    @Test("ids and results of every kind come out as the envelope object would", arguments: ids)
    func sameAsEnvelope(id: String) throws {
        let writer = JSONWriter()
        let idValue = try JSONParser.parse(id)
        for result in Self.results {
            let resultValue = try JSONParser.parse(result)
            var text: [UInt8] = []
            withExtendedLifetime((idValue, resultValue)) {
                ResponseText.append(id: idValue.view, result: resultValue.view, writer: writer, to: &text)
            }
            let envelope = OutgoingMessage.response(id: idValue.view, result: resultValue)
            #expect(String(decoding: text, as: UTF8.self) == JSONWriter.string(of: envelope.view))
        }
    }

    @Test("a real id kept as its text (1e2) is written as sent")
    func rawNumberID() throws {
        let id = RawNumber.make(Array("1e2".utf8))
        let pong = JanssonValue.string("pong")
        var text: [UInt8] = []
        withExtendedLifetime((id, pong)) {
            ResponseText.append(id: id.view, result: pong.view, writer: JSONWriter(), to: &text)
        }
        #expect(String(decoding: text, as: UTF8.self) == #"{"jsonrpc":"2.0","id":1e2,"result":"pong"}"#)
    }
}
