import Jansson
import JSONRPC
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
