import Jansson
@testable import PluginHost
import Testing

@Suite("An in-memory MCP peer: tools/list")
struct PeerToolListTests {
    static func tool(_ name: String) -> JSONValue {
        ["name": .string(name), "description": .string("Tool \(name)."), "inputSchema": ["type": "object"]]
    }

    /// The `peer.*` methods `host.methods` lists.
    static func peerMethods(_ client: PluginTestClient) async throws -> [String] {
        let answer = try await client.call("host.methods")
        let names = answer["result"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        return names.filter { $0.hasPrefix("peer.") }.sorted()
    }

    @Test("every page is read, with the cursor the server gave; every page's tools are methods")
    func paging() async throws {
        var script = MCPPeer.Script()
        script.pageSize = 2
        let client = try PluginTestClient(peer: MCPPeer(script: script, tools: ["a", "b", "c", "d", "e"].map(Self.tool)))
        try await client.start()
        #expect(try await Self.peerMethods(client) == ["peer.a", "peer.b", "peer.c", "peer.d", "peer.e"])
        let cursors = client.peer.received.items.filter { $0["method"] == "tools/list" }.map { $0["params"]?["cursor"] }
        #expect(cursors == [nil, "2", "4"])
        await client.finish()
    }

    @Test("a server whose every page has a next cursor is read for PluginSession.maxPages pages, then the host stops asking")
    func endlessCursor() async throws {
        var script = MCPPeer.Script()
        script.onMessage = { run, message in
            guard message["method"] == "tools/list" else { return false }
            let page = Int(message["params"]?["cursor"]?.stringValue ?? "0") ?? 0
            run.reply(to: message, result: ["tools": [PeerToolListTests.tool("t\(page)")], "nextCursor": .string(String(page + 1))])
            return true
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        let methods = try await Self.peerMethods(client)
        #expect(methods.count == PluginSession.maxPages)
        #expect(client.peer.count("tools/list") == PluginSession.maxPages)
        await client.finish()
    }

    @Test("a tool without a usable name (missing, empty, not a string) is left out; the others are served")
    func unusableNames() async throws {
        let tools: [JSONValue] = [Self.tool("good"), ["description": "no name"], ["name": "", "inputSchema": ["type": "object"]], ["name": 7]]
        let client = try PluginTestClient(peer: MCPPeer(tools: tools))
        try await client.start()
        #expect(try await Self.peerMethods(client) == ["peer.good"])
        await client.finish()
    }

    @Test("notifications/tools/list_changed: the host reads the list again, tells the client host.methodsChanged, and serves the new list")
    func listChanged() async throws {
        let peer = MCPPeer(tools: [Self.tool("old")])
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        #expect(try await Self.peerMethods(client) == ["peer.old"])
        let pushesBefore = client.messages.items.filter { $0["method"] == "host.methodsChanged" }.count
        peer.tools = [Self.tool("new")]
        try await peer.currentRun().notify("notifications/tools/list_changed")
        let push = try await client.notification("host.methodsChanged", skipping: pushesBefore)
        #expect(push["params"] == ["namespace": "peer"], "\(push.jsonText()) \(client.messages.items.map { $0.jsonText() })")
        #expect(peer.count("tools/list") == 2, "\(client.log.items) \(peer.received.items.map { $0.jsonText() })")
        #expect(try await Self.peerMethods(client) == ["peer.new"])
        let gone = try await client.call("peer.old")
        #expect(gone["error"]?["code"] == -32601)
        let new = try await client.call("peer.new")
        #expect(new["result"] == ["content": [["type": "text", "text": "ok"]]])
        await client.finish()
    }

    @Test("rpc.discover describes a tool from its schemas: params from inputSchema's properties, the result from outputSchema")
    func discovery() async throws {
        let tool: JSONValue = [
            "name": "area", "description": "Computes an area.\nMore words.",
            "inputSchema": ["type": "object", "properties": ["side": ["type": "number"]], "required": ["side"]],
            "outputSchema": ["type": "object", "properties": ["area": ["type": "number"]], "required": ["area"]],
        ]
        let client = try PluginTestClient(peer: MCPPeer(tools: [tool]))
        try await client.start()
        let document = try await client.call("rpc.discover")
        let method = document["result"]?["methods"]?.arrayValue?.first { $0["name"] == "peer.area" }
        #expect(method?["summary"] == "Computes an area.")
        #expect(method?["params"] == [["name": "side", "required": true, "schema": ["type": "number"]]])
        #expect(method?["result"]?["schema"] == ["type": "object", "properties": ["area": ["type": "number"]], "required": ["area"]])
        await client.finish()
    }
}
