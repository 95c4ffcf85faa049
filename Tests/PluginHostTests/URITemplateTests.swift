import Jansson
@testable import PluginHost
import Testing

@Suite("URI templates")
struct URITemplateTests {
    @Test("Variables take one path segment; literals must match exactly")
    func matches() {
        let template = URITemplate("weather://forecast/{date}")
        #expect(template.match("weather://forecast/2026-11-22") == ["date": "2026-11-22"])
        #expect(template.match("weather://forecast/") == nil)
        #expect(template.match("weather://forecast/a/b") == nil)
        #expect(template.match("weather://forecastx/1") == nil)
        #expect(URITemplate("mail://inbox").match("mail://inbox") == [:])
        #expect(URITemplate("cal://{year}-{month}").match("cal://2026-11") == ["year": "2026", "month": "11"])
    }

    @Test("Validator problems become -32602 field errors naming the member")
    func namesFields() {
        #expect(PluginTool.fieldError(from: "$.date: expected string, got integer 5").field == "date")
        #expect(PluginTool.fieldError(from: "$: missing required member \"place\"").field == "place")
        #expect(PluginTool.fieldError(from: "$.a.b: member \"c\" is not allowed (additionalProperties: false)").field == "a.b.c")
    }
}

@Suite("Protocol violations seen in the reader's replies")
struct ProtocolWatchTests {
    @Test("a parse error or an invalid request the reader answers is the plugin's violation; other answers are not")
    func findsViolations() {
        let parse = Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: parse) == "Parse error: x")
        let batch = Array(#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too big"}}]"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: batch) == "too big")
        let fine = Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#.utf8 + [0x0A])
        #expect(ProtocolWatchSink.violation(in: fine) == nil)
    }
}
