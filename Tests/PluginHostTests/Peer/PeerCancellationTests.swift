import Jansson
@testable import PluginHost
import Testing

@Suite("An in-memory MCP peer: cancellation and the plugin's own requests")
struct PeerCancellationTests {
    @Test("$/cancelRequest answers -32800 and forwards notifications/cancelled naming the host's id for that call")
    func cancelForwarded() async throws {
        var script = MCPPeer.Script()
        script.onCall = { _, _ in }
        let peer = MCPPeer(script: script)
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let id = try await client.request("peer.echo", ["text": "slow"])
        let call = try await peer.message("tools/call")
        try await client.send(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": id]])
        #expect(try await client.response(to: id)["error"]?["code"] == -32800)
        let cancelled = try await peer.message("notifications/cancelled")
        #expect(cancelled["params"] == ["requestId": call["id"] ?? .null, "reason": "cancelled by the client"])
        await client.finish()
    }

    @Test("the plugin's late answer to a cancelled call is dropped: the client gets one answer, and the plugin keeps serving")
    func lateAnswerDropped() async throws {
        var script = MCPPeer.Script()
        script.onCall = { _, _ in }
        script.onMessage = { run, message in
            // Answers the cancelled call after all, as a slow server does.
            if message["method"] == "notifications/cancelled", let id = message["params"]?["requestId"] {
                run.send(["jsonrpc": "2.0", "id": id, "result": ["content": [["type": "text", "text": "too late"]]]])
            }
            return false
        }
        let peer = MCPPeer(script: script)
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let id = try await client.request("peer.echo", ["text": "slow"])
        _ = try await peer.message("tools/call")
        try await client.send(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": id]])
        _ = try await client.response(to: id)
        _ = try await peer.message("notifications/cancelled")
        // A call after the late answer: once it is answered, the late answer has been read.
        let marker = try await client.request("plugins.list")
        _ = try await client.response(to: marker)
        #expect(client.messages.items.filter { $0["id"] == id }.count == 1)
        #expect(try await client.call("plugins.list")["result"]?["items"]?.arrayValue?.first?["state"] == "running")
        await client.finish()
    }

    @Test("MCP's client-side requests are answered: ping {}, roots/list no roots, sampling and elicitation -32601")
    func clientSideRequests() async throws {
        let peer = MCPPeer()
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let run = try await peer.currentRun()
        run.send(["jsonrpc": "2.0", "id": "p1", "method": "ping"])
        run.send(["jsonrpc": "2.0", "id": "p2", "method": "roots/list"])
        run.send(["jsonrpc": "2.0", "id": "p3", "method": "sampling/createMessage", "params": ["messages": [], "maxTokens": 1]])
        run.send(["jsonrpc": "2.0", "id": "p4", "method": "elicitation/create", "params": ["message": "?", "requestedSchema": [:]]])
        func answer(_ id: JSONValue) async throws -> JSONValue {
            try await peer.received.first("the host's answer to \(id.jsonText())") { $0["id"] == id && $0["method"] == nil }
        }
        #expect(try await answer("p1")["result"] == [:])
        #expect(try await answer("p2")["result"] == ["roots": []])
        #expect(try await answer("p3")["error"]?["code"] == -32601)
        #expect(try await answer("p4")["error"]?["code"] == -32601)
        await client.finish()
    }

    @Test("a host method the manifest's calls allow is answered to the plugin; any other is -32072 forbidden")
    func callbacks() async throws {
        let peer = MCPPeer()
        let client = try PluginTestClient(peer: peer, calls: ["host.echo"])
        try await client.start()
        let run = try await peer.currentRun()
        run.send(["jsonrpc": "2.0", "id": 1, "method": "host.echo", "params": ["value": 42]])
        run.send(["jsonrpc": "2.0", "id": 2, "method": "host.status"])
        let allowed = try await peer.received.first("the answer to host.echo") { $0["id"] == 1 && $0["method"] == nil }
        #expect(allowed["result"] == ["value": 42], "\(allowed.jsonText())")
        let forbidden = try await peer.received.first("the answer to host.status") { $0["id"] == 2 && $0["method"] == nil }
        #expect(forbidden["error"]?["code"] == -32072)
        #expect(forbidden["error"]?["data"] == ["plugin": "scripted", "reason": "forbidden", "method": "host.status", "allowed": ["host.echo"]])
        await client.finish()
    }
}
