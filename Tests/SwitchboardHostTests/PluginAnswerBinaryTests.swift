import Jansson
import Testing

/// What a plugin answers is its own, never more: the `liar` fixture answers each call with the raw
/// text the call asks for (forged host errors, malformed results), and the client gets the plugin's
/// error or a protocol failure naming what was wrong. Each test waits on answers, never on time.
@Suite("Plugin answers (binary)", .serialized, .offCooperativePool)
struct PluginAnswerBinaryTests {
    typealias H = BinaryHarness

    static let liars: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/liars"
    }()

    static func host() throws -> SpawnedHost {
        try SpawnedHost(arguments: ["serve", "--plugins", liars, "--backend", "memory", "--plugin-grace", "500"])
    }

    /// `liar.say`'s params: the plugin answers `{"jsonrpc":"2.0","id":N,` + `members` + `}`.
    static func say(_ members: String) -> String {
        #"{"members":\#(JSONValue.string(members).jsonText())}"#
    }

    static let forgedCrash = #""error":{"code":-32070,"message":"Plugin mail: the plugin exited","data":{"plugin":"weather","reason":"crashed"}}"#

    @Test("A plugin's error that forges a host failure of another plugin is the plugin's own error, named by its real namespace")
    func forgedFailureIsThePluginsError() throws {
        let host = try Self.host()
        let error = try PluginBinaryTests.call(host, 1, "liar.say", Self.say(Self.forgedCrash))["error"]
        #expect(error?["code"] == -32603, "\(error ?? .null)")
        #expect(error?["data"]?["plugin"] == "liar")
        #expect(error?["data"]?["reason"] == "pluginError")
        #expect(error?["data"]?["code"] == -32070)
        #expect(error?["data"]?["data"] == ["plugin": "weather", "reason": "crashed"])
    }

    @Test("A plugin's -32800 is no cancellation: the client that never cancelled gets the plugin's error")
    func pluginsCancellationIsNotBelieved() throws {
        let host = try Self.host()
        let error = try PluginBinaryTests.call(host, 1, "liar.say", Self.say(#""error":{"code":-32800,"message":"Request cancelled"}"#))["error"]
        #expect(error?["code"] == -32603, "\(error ?? .null)")
        #expect(error?["data"]?["plugin"] == "liar")
        #expect(error?["data"]?["reason"] == "pluginError")
        // Any other code is the plugin's to choose, named as its error.
        let own = try PluginBinaryTests.call(host, 2, "liar.say", Self.say(#""error":{"code":-32001,"message":"quota","data":{"plugin":"mail"}}"#))["error"]
        #expect(own == ["code": -32001, "message": "quota", "data": ["plugin": "liar", "reason": "pluginError", "data": ["plugin": "mail"]]])
    }

    @Test("Through the MCP face, a plugin's -32800 and forged failure are a tool error naming the plugin, not a cancellation")
    func mcpFaceWrapsForgedErrors() throws {
        let host = try Self.host()
        _ = try PluginBinaryTests.call(host, 1, "initialize", #"{"protocolVersion":"2025-11-25",\#(MCPServerBinaryTests.clientInfo)}"#)
        for (id, members) in [(2, #""error":{"code":-32800,"message":"Request cancelled"}"#), (3, Self.forgedCrash)] {
            let params = #"{"name":"liar.say","arguments":\#(Self.say(members))}"#
            let answer = try PluginBinaryTests.call(host, id, "tools/call", params)
            #expect(answer["result"]?["isError"] == true, "\(answer)")
            let text = try #require(answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue)
            let error = try JSONValue(parsing: Array(text.utf8))
            #expect(error["code"] == -32603)
            #expect(error["data"]?["plugin"] == "liar" && error["data"]?["reason"] == "pluginError", "\(text)")
        }
    }

    @Test("An error without an integer code, or an answer holding an integer beyond 64 bits, is -32070 protocol naming it, not a host failure",
          arguments: [
              (#""error":{"message":"no code here"}"#, "code is missing"),
              (#""error":{"code":1.5,"message":"m"}"#, "not an integer (1.5)"),
              (#""error":"nope""#, "not an object"),
              (#""result":{"content":[],"structuredContent":{"n":123456789012345678901234567890}}"#, "integer beyond 64 bits"),
          ])
    func malformedErrorIsProtocol(members: String, detail: String) throws {
        let host = try Self.host()
        let error = try PluginBinaryTests.call(host, 1, "liar.say", Self.say(members))["error"]
        #expect(error?["code"] == -32070, "\(error ?? .null)")
        #expect(error?["data"]?["plugin"] == "liar" && error?["data"]?["reason"] == "protocol")
        #expect(error?["data"]?["detail"]?.stringValue?.contains(detail) == true, "\(error ?? .null)")
        // Only the call failed: the plugin answers the next one, and the log has a warning, never a host error.
        #expect(try PluginBinaryTests.call(host, 2, "liar.ok")["result"] != nil)
        try host.waitForStderr(containing: "plugin liar answered a call with")
        #expect(!host.stderrText.contains(" error switchboard"), "\(host.stderrText)")
    }

    @Test("A tool result that is no CallToolResult is -32070 protocol naming what was wrong, never a silent success",
          arguments: [
              (#""result":[1,2,3]"#, "the tool result is array"),
              (#""result":null"#, "the tool result is null"),
              (#""result":"hello""#, "the tool result is string"),
              (#""result":{"content":"just a string"}"#, "content is string"),
              (#""result":{"content":[5]}"#, "content[0] is integer"),
              (#""result":{"content":[{"text":"no type"}]}"#, "content[0] has no string type"),
              (#""result":{"content":[],"structuredContent":[1,2]}"#, "structuredContent is array"),
              (#""result":{"content":[],"isError":"yes"}"#, "isError is string"),
          ])
    func malformedToolResult(members: String, detail: String) throws {
        let host = try Self.host()
        let error = try PluginBinaryTests.call(host, 1, "liar.say", Self.say(members))["error"]
        #expect(error?["code"] == -32070, "\(error ?? .null)")
        #expect(error?["data"]?["reason"] == "protocol")
        #expect(error?["data"]?["detail"]?.stringValue?.contains(detail) == true, "\(error ?? .null)")
        _ = try PluginBinaryTests.call(host, 2, "initialize", #"{"protocolVersion":"2025-11-25",\#(MCPServerBinaryTests.clientInfo)}"#)
        let mcp = try PluginBinaryTests.call(host, 3, "tools/call", #"{"name":"liar.say","arguments":\#(Self.say(members))}"#)
        #expect(mcp["error"]?["code"] == -32070 || mcp["result"]?["isError"] == true, "\(mcp)")
        #expect(mcp.jsonText().contains("protocol"), "\(mcp)")
    }

    @Test("An answer holding a lone surrogate escape (Python's name for a file name that is not UTF-8) is read with U+FFFD at once, with one log line")
    func loneSurrogateReadAsReplacement() throws {
        let host = try Self.host()
        let members = #""result":{"content":[{"type":"text","text":"report-\udcff.txt \ud83d\ude00"}]}"#
        try host.send(H.request(1, "liar.say", Self.say(members)))
        // Well before the plugin's timeoutMs (10 s): the call waited for it, then failed as a time-out.
        let answer = try host.response(to: 1, within: 5_000).response
        #expect(answer["result"] == ["content": [["type": "text", "text": "report-\u{FFFD}.txt \u{1F600}"]]], "\(answer)")
        try host.waitForStderr(containing: "plugin liar wrote a lone UTF-16 surrogate escape on its stdout: read as U+FFFD")
        #expect(!host.stderrText.contains("not JSON"), "\(host.stderrText)")
        #expect(!host.stderrText.contains("report-"), "the log quotes the plugin's text: \(host.stderrText)")
        #expect(try PluginBinaryTests.call(host, 2, "liar.ok")["result"] != nil)
    }

    @Test("What MCP clients tolerate passes: members and content blocks of kinds the host does not know, no content at all")
    func tolerantToolResult() throws {
        let host = try Self.host()
        let odd = try PluginBinaryTests.call(host, 1, "liar.say", Self.say(#""result":{"content":[{"type":"weird-kind","foo":1}],"extra":1}"#))
        #expect(odd["result"] == ["content": [["type": "weird-kind", "foo": 1]]], "\(odd)")
        #expect(try PluginBinaryTests.call(host, 2, "liar.say", Self.say(#""result":{}"#))["result"] == ["content": []])
    }

    @Test("An optional member that is null is absent, as Python's SDK reads it: null structuredContent, isError and content pass, and the host's MCP face leaves them out")
    func nullOptionalsAreAbsent() throws {
        let host = try Self.host()
        let members = #""result":{"content":[{"type":"text","text":"hi"}],"structuredContent":null,"isError":null}"#
        let plain = try PluginBinaryTests.call(host, 1, "liar.say", Self.say(members))
        #expect(plain["result"] == ["content": [["type": "text", "text": "hi"]]], "\(plain)")
        let empty = try PluginBinaryTests.call(host, 2, "liar.say", Self.say(#""result":{"content":null,"structuredContent":null}"#))
        #expect(empty["result"] == ["content": []], "\(empty)")
        _ = try PluginBinaryTests.call(host, 3, "initialize", #"{"protocolVersion":"2025-11-25",\#(MCPServerBinaryTests.clientInfo)}"#)
        let mcp = try PluginBinaryTests.call(host, 4, "tools/call", #"{"name":"liar.say","arguments":\#(Self.say(members))}"#)
        #expect(mcp["result"] == ["content": [["type": "text", "text": "hi"]]], "\(mcp)")
        // A member of the wrong kind is still refused.
        let wrong = try PluginBinaryTests.call(host, 5, "liar.say", Self.say(#""result":{"content":[],"isError":0}"#))
        #expect(wrong["error"]?["code"] == -32070, "\(wrong)")
    }

    @Test("prompts.get and resources.read answers that are not MCP's results are -32070 protocol, not passed on or emptied")
    func malformedPromptAndRead() throws {
        let host = try Self.host()
        for (id, members) in [(1, #""result":[1]"#), (2, #""result":{"messages":"hi"}"#)] {
            let prompt = try PluginBinaryTests.call(host, id, "prompts.get", #"{"name":"liar.say","arguments":{"members":\#(JSONValue.string(members).jsonText())}}"#)
            #expect(prompt["error"]?["code"] == -32070 && prompt["error"]?["data"]?["reason"] == "protocol", "\(prompt)")
        }
        for (id, kind) in [(3, "array"), (4, "string"), (5, "contentsNotArray")] {
            let read = try PluginBinaryTests.call(host, id, "resources.read", #"{"uri":"liar://bad/\#(kind)"}"#)
            #expect(read["error"]?["code"] == -32070 && read["error"]?["data"]?["reason"] == "protocol", "\(read)")
        }
    }
}
