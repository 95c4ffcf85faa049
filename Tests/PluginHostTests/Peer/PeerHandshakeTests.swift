#if canImport(Glibc)
import Glibc
#endif
import Jansson
@testable import PluginHost
import Testing

@Suite("An in-memory MCP peer: the handshake")
struct PeerHandshakeTests {
    @Test("the host asks for 2025-11-25 with its clientInfo, says initialized after the answer, then reads tools/list")
    func handshakeOrder() async throws {
        let client = try PluginTestClient(peer: MCPPeer())
        try await client.start()
        let initialize = try await client.peer.message("initialize")
        #expect(initialize["params"]?["protocolVersion"] == "2025-11-25")
        #expect(initialize["params"]?["clientInfo"]?["name"] == "switchboard")
        _ = try await client.peer.message("tools/list")
        let methods = client.peer.received.items.compactMap { $0["method"]?.stringValue }
        #expect(Array(methods.prefix(3)) == ["initialize", "notifications/initialized", "tools/list"])
        #expect(client.peer.received.items.first { $0["method"] == "notifications/initialized" }?["id"] == nil)
        await client.finish()
    }

    @Test("a server answering any revision the host accepts runs, and its tool answers", arguments: PluginSession.protocolVersions)
    func acceptedRevisions(version: String) async throws {
        var script = MCPPeer.Script()
        script.protocolVersion = version
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let answer = try await client.call("peer.echo", ["text": "hi"])
        #expect(answer["result"] == ["content": [["type": "text", "text": "hi"]]])
        let list = try await client.call("plugins.list")
        let item = list["result"]?["items"]?.arrayValue?.first
        #expect(item?["state"] == "running")
        #expect(item?["server"]?["name"] == "scripted")
        #expect(item?["methods"] == ["peer.echo"])
        #expect(item?["pid"] == nil, "an attached peer has no process id")
        await client.finish()
    }

    @Test("a server answering a revision the host does not know is refused as a protocol break and killed")
    func unknownRevision() async throws {
        var script = MCPPeer.Script()
        script.protocolVersion = "1999-01-01"
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let answer = try await client.call("peer.echo", ["text": "hi"])
        #expect(answer["error"]?["code"] == -32070)
        #expect(answer["error"]?["data"]?["reason"] == "protocol")
        #expect(answer["error"]?["data"]?["plugin"] == "scripted")
        #expect(answer["error"]?["message"]?.stringValue?.contains("1999-01-01") == true)
        _ = try await client.peer.signals.first("SIGKILL to the peer") { $0 == SIGKILL }
        #expect(client.peer.count("tools/list") == 0, "nothing is asked of a server that broke the handshake")
        await client.finish()
    }

    @Test("an initialize answer without a protocolVersion is refused the same way")
    func missingRevision() async throws {
        var script = MCPPeer.Script()
        script.onMessage = { run, message in
            guard message["method"] == "initialize" else { return false }
            run.reply(to: message, result: ["capabilities": [:], "serverInfo": ["name": "x", "version": "0"]])
            return true
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let answer = try await client.call("peer.echo", ["text": "hi"])
        #expect(answer["error"]?["data"]?["reason"] == "protocol")
        #expect(answer["error"]?["message"]?.stringValue?.contains("none") == true)
        await client.finish()
    }

    @Test("a server answering initialize with an error does not start: the call fails naming the plugin, and plugins.list says startFailed")
    func initializeError() async throws {
        var script = MCPPeer.Script()
        script.onMessage = { run, message in
            guard message["method"] == "initialize" else { return false }
            run.replyError(to: message, code: -32000, message: "not today")
            return true
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let answer = try await client.call("peer.echo", ["text": "hi"])
        #expect(answer["error"]?["data"]?["plugin"] == "scripted")
        #expect(answer["error"]?["message"]?.stringValue?.contains("not today") == true)
        #expect(client.peer.count("tools/list") == 0)
        let list = try await client.call("plugins.list")
        #expect(list["result"]?["items"]?.arrayValue?.first?["lastError"]?.stringValue?.contains("not today") == true)
        await client.finish()
    }

    @Test("a server that never answers initialize: the start times out (-32070 timeout) and the server is told notifications/cancelled")
    func initializeNeverAnswered() async throws {
        var script = MCPPeer.Script()
        script.onMessage = { _, message in message["method"] == "initialize" }
        let client = try PluginTestClient(peer: MCPPeer(script: script), timeoutMilliseconds: 200)
        try await client.start()
        let answer = try await client.call("peer.echo", ["text": "hi"])
        #expect(answer["error"]?["code"] == -32070)
        #expect(answer["error"]?["data"]?["reason"] == "timeout")
        let initialize = try await client.peer.message("initialize")
        let cancelled = try await client.peer.message("notifications/cancelled")
        #expect(cancelled["params"]?["requestId"] == initialize["id"])
        #expect(cancelled["params"]?["reason"] == "timeout")
        await client.finish()
    }

    @Test("resources and prompts are read at the handshake only when the server has those capabilities")
    func capabilitiesDecideTheLists() async throws {
        let plain = try PluginTestClient(peer: MCPPeer())
        try await plain.start()
        _ = try await plain.call("peer.echo", ["text": "x"])
        #expect(plain.peer.count("resources/list") == 0 && plain.peer.count("prompts/list") == 0)
        await plain.finish()

        var script = MCPPeer.Script()
        script.capabilities = ["tools": [:], "resources": [:], "prompts": [:]]
        script.onMessage = { run, message in
            switch message["method"]?.stringValue {
            case "resources/list": run.reply(to: message, result: ["resources": [["uri": "peer://a", "name": "a"]]])
            case "resources/templates/list": run.reply(to: message, result: ["resourceTemplates": []])
            case "prompts/list": run.reply(to: message, result: ["prompts": [["name": "greet"]]])
            default: return false
            }
            return true
        }
        let rich = try PluginTestClient(peer: MCPPeer(script: script))
        try await rich.start()
        _ = try await rich.peer.message("resources/list")
        _ = try await rich.peer.message("prompts/list")
        let list = try await rich.call("plugins.list")
        #expect(list["result"]?["items"]?.arrayValue?.first?["resources"] == ["peer://a"])
        await rich.finish()
    }
}
