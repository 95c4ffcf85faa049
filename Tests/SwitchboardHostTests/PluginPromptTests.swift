import Jansson
import Testing

/// A plugin's MCP prompts as `prompts.list`/`prompts.get` on the plain face and `prompts/list`/`prompts/get`
/// on the MCP face (issue 20, point 6), against the built binary with the probe, which offers `greet`.
@Suite("Plugin prompts (binary)", .offCooperativePool)
struct PluginPromptTests {
    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try PluginBinaryTests.call(host, id, method, params)
    }

    @Test("prompts.list names the probe's prompt namespace.prompt with its arguments and owner; prompts.get fills it")
    func plainFace() throws {
        let host = try PluginBinaryTests.host()
        let list = try #require(try Self.call(host, 1, "prompts.list")["result"])
        let greet = try #require(list["items"]?.arrayValue?.first { $0["name"] == "probe.greet" })
        #expect(greet["owner"] == "probe" && greet["arguments"]?.arrayValue?.count == 2)
        #expect(list["hasMore"] == false && list["nextCursor"] == .null)
        let filled = try #require(try Self.call(host, 2, "prompts.get", #"{"name":"probe.greet","arguments":{"who":"Ada"}}"#)["result"])
        #expect(filled["messages"] == [["role": "user", "content": ["type": "text", "text": "Greet Ada."]]])
    }

    @Test("prompts.get refuses what the prompt does not take, naming it", arguments: [
        (#"{"name":"probe.nope"}"#, "name"), (#"{"name":"elsewhere.greet"}"#, "name"), (#"{"name":"probe.greet"}"#, "arguments.who"),
        (#"{"name":"probe.greet","arguments":{"who":3}}"#, "arguments.who"), (#"{"name":"probe.greet","arguments":{"who":"a","mood":"b"}}"#, "arguments.mood"),
    ])
    func refusals(params: String, field: String) throws {
        let host = try PluginBinaryTests.host()
        let error = try Self.call(host, 1, "prompts.get", params)["error"]
        #expect(error?["code"] == -32602 && error?["data"]?["field"] == .string(field), "\(String(describing: error))")
    }

    @Test("MCP face: prompts capability, prompts/list with the owner under _meta, prompts/get answering the plugin's messages")
    func mcpFace() throws {
        let host = try PluginBinaryTests.host()
        let initialized = try Self.call(host, 1, "initialize", #"{"protocolVersion":"2025-11-25",\#(MCPServerBinaryTests.clientInfo)}"#)
        #expect(initialized["result"]?["capabilities"]?["prompts"] == ["listChanged": true])
        try host.send(BinaryHarness.notification("notifications/initialized"))
        let list = try #require(try Self.call(host, 2, "prompts/list")["result"])
        let greet = try #require(list["prompts"]?.arrayValue?.first { $0["name"] == "probe.greet" })
        #expect(greet["_meta"] == ["switchboard/owner": "probe"] && greet["owner"] == nil && list["nextCursor"] == nil)
        let filled = try #require(try Self.call(host, 3, "prompts/get", #"{"name":"probe.greet","arguments":{"who":"Bo"}}"#)["result"])
        #expect(filled["description"] == "a greeting")
        #expect(filled["messages"]?.arrayValue?.first?["content"]?["text"] == "Greet Bo.")
        #expect(try Self.call(host, 4, "prompts/get", #"{"name":"probe.greet"}"#)["error"]?["data"]?["field"] == "arguments.who")
    }
}
