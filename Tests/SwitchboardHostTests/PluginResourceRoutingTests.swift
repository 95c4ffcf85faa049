#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// Plugin resources against the built binary: a URI is routed to its plugin also while the plugin is
/// not running (it is started again, as a call would), `resources.templates` pages like
/// `resources.list`, and a `resources/unsubscribe` the plugin never answers is given up after its
/// `timeoutMs`. Each test waits on answers and pushes (events), never on time.
@Suite("Plugin resources: routing, template pages, unsubscribe time-out (binary)", .serialized, .offCooperativePool)
struct PluginResourceRoutingTests {
    typealias H = BinaryHarness

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try PluginBinaryTests.call(host, id, method, params)
    }

    static func expectCrash(_ host: SpawnedHost, id: Int) throws {
        #expect(try Self.call(host, id, "probe.crash")["error"]?["data"]?["reason"] == "crashed")
    }

    @Test("resources.read and resources.subscribe of a crashed plugin's URI start it again; a failed plugin answers failed; an unowned URI stays -32602")
    func routesToAStoppedPlugin() throws {
        let host = try PluginBinaryTests.host()
        let counter = #"{"uri":"probe://counter"}"#
        #expect(try Self.call(host, 1, "resources.read", counter)["result"]?["contents"]?.arrayValue?.count == 1)
        try Self.expectCrash(host, id: 2)
        let read = try Self.call(host, 3, "resources.read", counter)
        #expect(read["result"]?["contents"]?.arrayValue?.first?["uri"] == "probe://counter", "\(read)")
        let listed = try Self.call(host, 4, "plugins.list")["result"]?["items"]?.arrayValue?.first { $0["name"] == "probe" }
        #expect(listed?["state"] == "running")
        #expect(listed?["restarts"] == 1)

        try Self.expectCrash(host, id: 5)
        // A URI of one of its templates, and a subscription, each start it too.
        let shelf = try Self.call(host, 6, "resources.subscribe", #"{"uri":"probe://shelf/07/moby-dick"}"#)
        #expect(shelf["result"]?["subscriptionId"]?.stringValue != nil, "\(shelf)")

        try Self.expectCrash(host, id: 7)
        // The third crash within the window: failed until plugins.restart, and said so.
        let failed = try Self.call(host, 8, "resources.read", counter)
        #expect(failed["error"]?["code"] == -32070)
        #expect(failed["error"]?["data"]?["plugin"] == "probe")
        #expect(failed["error"]?["data"]?["reason"] == "failed", "\(failed)")

        let unowned = try Self.call(host, 9, "resources.read", #"{"uri":"nobody://thing"}"#)
        #expect(unowned["error"]?["code"] == -32602)
        #expect(unowned["error"]?["data"]?["field"] == "uri")
        let unsubscribable = try Self.call(host, 10, "resources.subscribe", #"{"uri":"nobody://thing"}"#)
        #expect(unsubscribable["error"]?["data"]?["field"] == "uri")
    }

    static let unlistedFixtures: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/unlisted"
    }()

    /// A host with the `fragile` fixture, which crashes before `initialize` until the file `ready` exists.
    static func fragileHost() throws -> (host: SpawnedHost, ready: String) {
        let folder = try H.temporaryFolder("unlisted")
        let host = try SpawnedHost(arguments: ["serve", "--plugins", unlistedFixtures, "--backend", "memory", "--plugin-grace", "500"],
                                   environment: ["FRAGILE_READY": folder + "/ready", "XDG_CONFIG_HOME": folder])
        return (host, folder + "/ready")
    }

    static func makeFile(_ path: String) {
        let fd = creat(path, 0o600)
        #expect(fd >= 0)
        close(fd)
    }

    static let counter = #"{"uri":"probe://counter"}"#

    @Test("resources.read and resources.subscribe start again a plugin that crashed before it ever listed; while it cannot start, the -32602 names it")
    func startsAPluginThatNeverListed() throws {
        let (host, ready) = try Self.fragileHost()
        // The listing wait starts it and it crashes, then the read starts it again and it crashes again.
        let crashed = try #require(try Self.call(host, 1, "resources.read", Self.counter)["error"])
        #expect(crashed["code"] == -32602)
        #expect(crashed["data"]?["field"] == "uri")
        #expect(crashed["data"]?["unlisted"]?.arrayValue?.first?["plugin"] == "fragile", "\(crashed)")
        #expect(crashed["data"]?["unlisted"]?.arrayValue?.first?["reason"] == "crashed", "\(crashed)")
        #expect(crashed["message"]?.stringValue?.contains("fragile") == true)
        // Once it can start, a subscription of its URI starts it (after the back-off) and finds the owner.
        Self.makeFile(ready)
        let subscribed = try Self.call(host, 2, "resources.subscribe", Self.counter)
        #expect(subscribed["result"]?["subscriptionId"]?.stringValue != nil, "\(subscribed)")
        let read = try Self.call(host, 3, "resources.read", Self.counter)
        #expect(read["result"]?["contents"]?.arrayValue?.first?["uri"] == "probe://counter", "\(read)")
        let listed = try Self.call(host, 4, "plugins.list")["result"]?["items"]?.arrayValue?.first
        #expect(listed?["state"] == "running")
        // Two crashes, or one if the listing wait gave up before the first start ended.
        #expect((listed?["restarts"]?.int64Value ?? 0) >= 1, "\(String(describing: listed))")
        // Now that every plugin has listed, a URI no one owns is a plain -32602.
        let unowned = try #require(try Self.call(host, 5, "resources.read", #"{"uri":"nobody://thing"}"#)["error"])
        #expect(unowned["code"] == -32602)
        #expect(unowned["data"]?["unlisted"] == nil)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("A plugin that never listed is not started past its crash limit: the read's -32602 says failed until plugins.restart")
    func neverListedPluginFails() throws {
        let (host, ready) = try Self.fragileHost()
        // Each read starts it again and it crashes, until the third crash within the window leaves it
        // failed; the next read says so without starting it (how many reads that takes depends on
        // whether the first read's listing wait saw the first crash).
        var reasons: [String] = []
        for id in 1...4 {
            let reason = try Self.call(host, id, "resources.read", Self.counter)["error"]?["data"]?["unlisted"]?.arrayValue?.first?["reason"]
            reasons.append(reason?.stringValue ?? "none")
            if reasons.last == "failed" { break }
        }
        #expect(reasons.last == "failed", "\(reasons)")
        #expect(reasons.dropLast().allSatisfy { $0 == "crashed" }, "\(reasons)")
        let failed = try #require(try Self.call(host, 10, "resources.subscribe", Self.counter)["error"])
        #expect(failed["code"] == -32602)
        #expect(failed["data"]?["unlisted"]?.arrayValue?.first?["reason"] == "failed", "\(failed)")
        #expect(try Self.call(host, 11, "plugins.list")["result"]?["items"]?.arrayValue?.first?["state"] == "failed")
        Self.makeFile(ready)
        #expect(try Self.call(host, 12, "plugins.restart", #"{"name":"fragile"}"#)["result"]?["state"] == "running")
        #expect(try Self.call(host, 13, "resources.read", Self.counter)["result"]?["contents"]?.arrayValue?.count == 1)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    /// Every `uriTemplate` of `method`'s pages, following `nextCursor`; the next request id.
    static func templatePages(_ host: SpawnedHost, _ method: String, items member: String, limit: Int?, from id: Int) throws
        -> (templates: [String], next: Int) {
        var templates: [String] = []
        var cursor: String?
        var id = id
        repeat {
            var params: JSONObject = [:]
            if let limit { params["limit"] = .integer(Int64(limit)) }
            if let cursor { params["cursor"] = .string(cursor) }
            let page = try #require(try call(host, id, method, JSONValue.object(params).jsonText())["result"])
            templates += page[member]?.arrayValue?.compactMap { $0["uriTemplate"]?.stringValue } ?? []
            cursor = page["nextCursor"]?.stringValue
            if member == "items" { #expect(page["hasMore"] == .bool(cursor != nil)) }
            id += 1
        } while cursor != nil
        return (templates, id)
    }

    @Test("resources.templates pages by template through the core's and a plugin's (read over the plugin's own pages); MCP's resources/templates/list follows nextCursor")
    func pagesTemplates() throws {
        let host = try PluginBinaryTests.host()
        let (paged, next) = try Self.templatePages(host, "resources.templates", items: "items", limit: 7, from: 1)
        #expect(paged == paged.sorted())
        #expect(Set(paged).count == paged.count)
        #expect(paged.contains("feed://item/{id}") && paged.contains("probe://shelf/00/{book}") && paged.contains("probe://shelf/59/{book}"))
        let whole = try Self.call(host, next, "resources.templates", #"{"limit":500}"#)["result"]
        #expect(whole?["items"]?.arrayValue?.compactMap { $0["uriTemplate"]?.stringValue } == paged)
        #expect(whole?["hasMore"] == false && whole?["nextCursor"] == .null)
        let refused = try Self.call(host, next + 1, "resources.templates", #"{"cursor":"not-a-cursor"}"#)["error"]
        #expect(refused?["code"] == -32602)
        #expect(refused?["data"]?["field"] == "cursor")
        // A cursor of resources.list is not one of resources.templates.
        let listCursor = try #require(try Self.call(host, next + 2, "resources.list", #"{"limit":1}"#)["result"]?["nextCursor"]?.stringValue)
        #expect(try Self.call(host, next + 3, "resources.templates", #"{"cursor":"\#(listCursor)"}"#)["error"]?["data"]?["field"] == "cursor")
        let (mcp, _) = try Self.templatePages(host, "resources/templates/list", items: "resourceTemplates", limit: nil, from: next + 4)
        #expect(mcp == paged)
    }

    @Test("A resources/unsubscribe the plugin never answers is given up after its timeoutMs, with notifications/cancelled; subscribing again works")
    func unsubscribeTimesOut() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginFaultBinaryTests.quickPlugins, "--backend", "memory", "--plugin-grace", "500"])
        try #require(try PluginFaultBinaryTests.echoes(host, firstID: 100), "the plugin never answered")
        let counter = try #require(try Self.call(host, 1, "resources.subscribe", #"{"uri":"probe://counter"}"#)["result"]?["subscriptionId"])
        let item = #"{"uri":"probe://item/00"}"#
        let itemID = try #require(try Self.call(host, 2, "resources.subscribe", item)["result"]?["subscriptionId"]?.stringValue)
        #expect(try Self.call(host, 3, "quick.ignoreUnsubscribe")["result"] == ["ignoring": true])
        #expect(try Self.call(host, 4, "resources.unsubscribe", #"{"subscriptionId":"\#(itemID)"}"#)["result"] != nil)
        // The probe reports the host's cancellation of the unanswered unsubscribe as a change of the counter.
        var update: JSONValue?
        while update == nil {
            let message = try host.nextMessage()
            if message["method"] == "resources.updated" { update = message["params"] }
        }
        #expect(update?["subscriptionId"] == counter)
        #expect(update?["uri"] == "probe://counter")
        #expect(try Self.call(host, 5, "resources.subscribe", item)["result"]?["subscriptionId"]?.stringValue != nil)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
