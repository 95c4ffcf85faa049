import Jansson
@testable import PluginHost
import Synchronization
import Testing

@Suite("An in-memory MCP peer: tools/call")
struct PeerToolCallTests {
    /// A peer whose `tools/call` answers `result` as it is.
    static func answering(_ result: JSONValue, tools: [JSONValue] = [MCPPeer.echoTool]) -> MCPPeer {
        var script = MCPPeer.Script()
        script.onCall = { run, request in run.reply(to: request, result: result) }
        return MCPPeer(script: script, tools: tools)
    }

    @Test("the result is {content} as the plugin sent it, every kind of block included")
    func contentPassesThrough() async throws {
        let content: JSONValue = [
            ["type": "text", "text": "zwölf 🌍"],
            ["type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"],
            ["type": "resource", "resource": ["uri": "peer://x", "text": "body", "mimeType": "text/plain"]],
        ]
        let client = try PluginTestClient(peer: Self.answering(["content": content]))
        try await client.start()
        let answer = try await client.call("peer.echo", ["text": "hi"])
        #expect(answer["result"] == ["content": content])
        await client.finish()
    }

    @Test("structuredContent, when the plugin sends it, is the result instead of {content}")
    func structuredContent() async throws {
        let client = try PluginTestClient(peer: Self.answering(["content": [["type": "text", "text": "{}"]], "structuredContent": ["n": 3, "list": [1, 2]]]))
        try await client.start()
        #expect(try await client.call("peer.echo", ["text": "hi"])["result"] == ["n": 3, "list": [1, 2]])
        await client.finish()
    }

    @Test("a result without content is {content: []}")
    func noContent() async throws {
        let client = try PluginTestClient(peer: Self.answering([:]))
        try await client.start()
        #expect(try await client.call("peer.echo", ["text": "hi"])["result"] == ["content": []])
        await client.finish()
    }

    @Test("isError: true is -32071 {plugin, reason: toolError, content}, its message the tool's first text")
    func toolError() async throws {
        let content: JSONValue = [["type": "text", "text": "No such city: Atlantis"], ["type": "text", "text": "second"]]
        let client = try PluginTestClient(peer: Self.answering(["isError": true, "content": content]))
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "hi"])["error"]
        #expect(error?["code"] == -32071)
        #expect(error?["message"] == "Tool echo failed: No such city: Atlantis")
        #expect(error?["data"] == ["plugin": "scripted", "reason": "toolError", "content": content])
        await client.finish()
    }

    @Test("a JSON-RPC error from the plugin keeps its code and message, and names the plugin with its data kept")
    func pluginError() async throws {
        var script = MCPPeer.Script()
        script.onCall = { run, request in
            run.send(["jsonrpc": "2.0", "id": request["id"] ?? .null, "error": ["code": -32001, "message": "quota", "data": ["left": 0]]])
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "hi"])["error"]
        #expect(error?["code"] == -32001)
        #expect(error?["message"] == "quota")
        #expect(error?["data"] == ["plugin": "scripted", "reason": "pluginError", "data": ["left": 0]])
        await client.finish()
    }

    @Test("the plugin gets tools/call {name, arguments} as sent, under an id of the host's own, never the client's")
    func argumentsAndIDs() async throws {
        let client = try PluginTestClient(peer: MCPPeer())
        try await client.start()
        let arguments: JSONValue = ["text": "a\"b\\c ☃"]
        try await client.send(["jsonrpc": "2.0", "id": "client-id", "method": "peer.echo", "params": arguments])
        let answer = try await client.response(to: "client-id")
        #expect(answer["result"] == ["content": [["type": "text", "text": "a\"b\\c ☃"]]])
        let call = try await client.peer.message("tools/call")
        #expect(call["params"] == ["name": "echo", "arguments": arguments])
        #expect(call["id"]?.int64Value != nil, "the host numbers its own requests: \(call.jsonText())")
        await client.finish()
    }

    @Test("calls in flight at once are each answered with their own result, whatever order the plugin answers in")
    func answersOutOfOrder() async throws {
        let held = HeldCalls()
        var script = MCPPeer.Script()
        script.onCall = { run, request in
            // Hold the first two; answer them in reverse once the third arrives.
            guard let pair = held.add(request) else { return }
            for call in pair.reversed() {
                run.reply(to: call, result: ["content": [["type": "text", "text": call["params"]?["arguments"]?["text"] ?? ""]]])
            }
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let ids = [try await client.request("peer.echo", ["text": "one"]), try await client.request("peer.echo", ["text": "two"]),
                   try await client.request("peer.echo", ["text": "three"])]
        for (id, text) in zip(ids, ["one", "two", "three"]) {
            #expect(try await client.response(to: id)["result"]?["content"]?.arrayValue?.first?["text"] == .string(text))
        }
        await client.finish()
    }

    @Test("params that break the inputSchema are refused -32602 naming the field, before the plugin sees them",
          arguments: [
              (["text": 5] as JSONValue, "text"),
              ([:] as JSONValue, "text"),
              (["text": "x", "extra": 1] as JSONValue, "extra"),
          ])
    func schemaCheckedFirst(params: JSONValue, field: String) async throws {
        let client = try PluginTestClient(peer: MCPPeer())
        try await client.start()
        let refused = try await client.call("peer.echo", params)
        #expect(refused["error"]?["code"] == -32602)
        #expect(refused["error"]?["data"]?["field"] == .string(field), "\(refused.jsonText())")
        // The next good call is the first the plugin sees: the refused one never reached it.
        _ = try await client.call("peer.echo", ["text": "good"])
        let calls = client.peer.received.items.filter { $0["method"] == "tools/call" }
        #expect(calls.map { $0["params"]?["arguments"] } == [["text": "good"]])
        await client.finish()
    }

    @Test("_meta.progressToken goes to the plugin as a token of the host's; its notifications/progress reach the client as $/progress with the client's token")
    func progress() async throws {
        var script = MCPPeer.Script()
        script.onCall = { run, request in
            let token = request["params"]?["_meta"]?["progressToken"] ?? .null
            run.notify("notifications/progress", params: ["progressToken": token, "progress": 1, "total": 2, "message": "half"])
            run.notify("notifications/progress", params: ["progressToken": "someone-else", "progress": 9])
            run.reply(to: request, result: ["content": []])
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let id = try await client.request("peer.echo", ["text": "x"], meta: ["progressToken": "mine"])
        let answer = try await client.response(to: id)
        #expect(answer["result"] == ["content": []])
        let progress = client.messages.items.filter { $0["method"] == "$/progress" }
        #expect(progress == [["jsonrpc": "2.0", "method": "$/progress", "params": ["token": "mine", "value": ["progress": 1, "total": 2, "message": "half"]]]])
        let call = try await client.peer.message("tools/call")
        let token = call["params"]?["_meta"]?["progressToken"]
        #expect(token != nil && token != "mine", "the client's token is not the plugin's: \(call.jsonText())")
        await client.finish()
    }

    @Test("a call of a tool the plugin does not have is -32601; the plugin sees no call")
    func unknownTool() async throws {
        let client = try PluginTestClient(peer: MCPPeer())
        try await client.start()
        #expect(try await client.call("peer.nothing")["error"]?["code"] == -32601)
        #expect(client.peer.count("tools/call") == 0)
        await client.finish()
    }
}

/// Holds `tools/call` requests until two have come; the third releases them.
final class HeldCalls: Sendable {
    private let calls = Mutex<[JSONValue]>([])

    /// Adds `call`; returns the held calls (and this one is answered by the caller too) once it is the third.
    func add(_ call: JSONValue) -> [JSONValue]? {
        calls.withLock { calls in
            calls.append(call)
            return calls.count == 3 ? calls : nil
        }
    }
}
