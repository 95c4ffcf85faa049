#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// Plugins against the built binary: listings that wait for a plugin without stopping the connection,
/// calls into the host past the plugin's slots, `resources.list` pages, and plugin subscriptions
/// released with their last client. Each test waits on answers (events), never on time.
@Suite("Plugins: listings, callbacks, paging, subscriptions (binary)", .serialized, .offCooperativePool)
struct PluginFlowTests {
    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try PluginBinaryTests.call(host, id, method, params)
    }

    @Test("A listing waits for a starting plugin in a task: host.ping is answered meanwhile, then the listings")
    func listingsWaitWithoutStoppingTheConnection() throws {
        let folder = try BinaryHarness.temporaryFolder("gate")
        let gate = folder + "/gate"
        #expect(mkfifo(gate, 0o600) == 0)
        let plugins = String(PluginBinaryTests.fixtures.dropLast("/plugins".count)) + "/gated"
        let host = try SpawnedHost(arguments: ["serve", "--plugins", plugins, "--backend", "memory", "--plugin-grace", "500"],
                                   environment: ["PROBE_GATE": gate, "XDG_CONFIG_HOME": folder])
        try host.send(BinaryHarness.request(1, "host.methods"))
        try host.send(BinaryHarness.request(2, "rpc.discover"))
        try host.send(BinaryHarness.request(3, "host.ping"))
        // The plugin cannot start before the gate opens, so the listings are still waiting.
        let (ping, before) = try host.response(to: 3)
        #expect(ping["result"] == "pong")
        #expect(!before.contains { $0["id"] == 1 || $0["id"] == 2 })

        let writer = open(gate, O_WRONLY)
        #expect(writer >= 0)
        _ = write(writer, "go\n", 3)
        close(writer)
        #expect(try host.response(to: 1).response["result"]?.arrayValue != nil)
        #expect(try host.response(to: 2).response["result"]?["methods"]?.arrayValue != nil)
        let methods = try Self.call(host, 4, "host.methods")["result"]?.arrayValue ?? []
        #expect(methods.contains { $0["name"] == "gate.echo" })
    }

    @Test("A plugin's calls into the host past its slots are refused as busy, never stopping its reader: every call is answered")
    func callbacksNeverStopThePluginsReader() throws {
        let host = try PluginBinaryTests.host()
        let answer = try Self.call(host, 1, "probe.fan", #"{"count":200,"method":"probe.echo"}"#)
        let result = try #require(answer["result"], "the fan call itself answers: \(answer)")
        let results = result["results"]?.int64Value ?? 0
        let errors = result["errors"]?.objectValue ?? [:]
        #expect(results > 0)
        #expect(errors.keys.allSatisfy { $0 == "-32073" }, "only refusals, no time-outs: \(errors)")
        #expect(results + (errors["-32073"]?.int64Value ?? 0) == 200)
        #expect(try Self.call(host, 2, "probe.echo", #"{"text":"after"}"#)["result"] == ["text": "after"])
    }

    /// Every URI of `method`'s pages, following `nextCursor` from `params` on; the next request id.
    static func pages(_ host: SpawnedHost, _ method: String, items member: String, limit: Int?, from id: Int) throws -> (uris: [String], next: Int) {
        var uris: [String] = []
        var cursor: String?
        var id = id
        repeat {
            var params: JSONObject = [:]
            if let limit { params["limit"] = .integer(Int64(limit)) }
            if let cursor { params["cursor"] = .string(cursor) }
            let page = try #require(try call(host, id, method, JSONValue.object(params).jsonText())["result"])
            uris += page[member]?.arrayValue?.compactMap { $0["uri"]?.stringValue } ?? []
            cursor = page["nextCursor"]?.stringValue
            if member == "items" { #expect(page["hasMore"] == .bool(cursor != nil)) }
            id += 1
        } while cursor != nil
        return (uris, id)
    }

    @Test("resources.list pages by URI through the core's and a plugin's resources (read over the plugin's own pages); MCP's resources/list has them all on one page")
    func pagesResources() throws {
        let host = try PluginBinaryTests.host()
        let (paged, next) = try Self.pages(host, "resources.list", items: "items", limit: 7, from: 1)
        #expect(paged == paged.sorted())
        #expect(Set(paged).count == paged.count)
        #expect(paged.contains("mail://inbox") && paged.contains("probe://counter") && paged.contains("probe://item/59"))
        let whole = try Self.call(host, next, "resources.list", #"{"limit":500}"#)["result"]?["items"]?.arrayValue ?? []
        #expect(whole.compactMap { $0["uri"]?.stringValue } == paged)
        let refused = try Self.call(host, next + 1, "resources.list", #"{"cursor":"not-a-cursor"}"#)["error"]
        #expect(refused?["code"] == -32602)
        #expect(refused?["data"]?["field"] == "cursor")
        // MCP's resources/list: every resource on its one page (more than resources.list's 50 by default).
        #expect(paged.count > 50)
        let mcp = try #require(try Self.call(host, next + 2, "resources/list")["result"])
        #expect(mcp["resources"]?.arrayValue?.compactMap { $0["uri"]?.stringValue } == paged)
        #expect(mcp["nextCursor"] == nil)
    }

    @Test("A plugin resource is unsubscribed at the plugin when its last client subscription ends")
    func unsubscribesAtThePlugin() throws {
        let host = try PluginBinaryTests.host()
        let subscribe = #"{"uri":"probe://counter"}"#
        let first = try #require(try Self.call(host, 1, "resources.subscribe", subscribe)["result"]?["subscriptionId"]?.stringValue)
        let second = try #require(try Self.call(host, 2, "resources.subscribe", subscribe)["result"]?["subscriptionId"]?.stringValue)
        #expect(try Self.call(host, 3, "probe.subscriptions")["result"]?["uris"] == ["probe://counter"])
        _ = try Self.call(host, 4, "resources.unsubscribe", #"{"subscriptionId":"\#(first)"}"#)
        #expect(try Self.call(host, 5, "probe.subscriptions")["result"]?["uris"] == ["probe://counter"], "one subscription remains")
        _ = try Self.call(host, 6, "resources.unsubscribe", #"{"subscriptionId":"\#(second)"}"#)
        #expect(try Self.call(host, 7, "probe.subscriptions")["result"]?["uris"] == [])
    }
}
