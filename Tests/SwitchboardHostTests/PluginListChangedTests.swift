import Jansson
import Testing

/// `resources.listChanged` over real pipes: pushed when a plugin with resources starts (also at once
/// with `--eager-plugins`) and when it ends. Each test waits on the pushes (events), never on time.
@Suite("Plugin resources.listChanged (binary)", .serialized, .offCooperativePool)
struct PluginListChangedTests {
    /// Reads until `count` `resources.listChanged` pushes came in all (`seen` already read), then until the
    /// answer to `id` (if any); their params.
    static func listChanged(_ count: Int, from host: SpawnedHost, seen: [JSONValue] = [], answering id: Int? = nil) throws -> [JSONValue] {
        var pushes = seen.filter { $0["method"]?.stringValue == "resources.listChanged" }.map { $0["params"] ?? .null }
        var answered = id == nil
        while pushes.count < count || !answered {
            let message = try host.nextMessage()
            if message["method"]?.stringValue == "resources.listChanged" { pushes.append(message["params"] ?? .null) }
            if message["method"] == nil, let id, message["id"] == .integer(Int64(id)) { answered = true }
        }
        return pushes
    }

    @Test("--eager-plugins starts a plugin without any call: its start pushes resources.listChanged, and it runs with a pid")
    func startsEagerly() throws {
        let host = try PluginBinaryTests.host(["--eager-plugins", "--framing", "ndjson"])  // no input to detect the framing from
        #expect(try Self.listChanged(1, from: host) == [["namespace": "probe"]])
        let items = try PluginBinaryTests.call(host, 1, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        let probe = items.first { $0["name"] == "probe" }
        #expect(probe?["state"] == "running")
        #expect(probe?["pid"]?.int64Value != nil)
    }

    @Test("A plugin with resources that crashes pushes resources.listChanged, as its start did")
    func pushesWhenAPluginEnds() throws {
        let host = try PluginBinaryTests.host()
        try host.send(BinaryHarness.request(1, "resources.list"))
        let (listed, before) = try host.response(to: 1)
        #expect(listed["result"]?["items"]?.arrayValue?.contains { $0["uri"] == "probe://counter" } == true)
        try host.send(BinaryHarness.request(2, "probe.crash"))
        // One push for the start (made by resources.list, before or after its answer), one for the crash.
        #expect(try Self.listChanged(2, from: host, seen: before, answering: 2) == [["namespace": "probe"], ["namespace": "probe"]])
        let relisted = try PluginBinaryTests.call(host, 3, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(relisted.first { $0["name"] == "probe" }?["state"] == "stopped")
    }
}
