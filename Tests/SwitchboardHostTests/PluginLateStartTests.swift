#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A plugin that starts after the listing wait (a first `uvx` run takes seconds) is announced when it
/// arrives, on both faces, to a client that listed before it came (issue 20, point 2). The `gate` fixture
/// starts only once the test writes to its FIFO, so "later than the listing" is an event, not a time.
@Suite("Plugins that start after a listing (binary)", .serialized, .offCooperativePool)
struct PluginLateStartTests {
    /// A host serving the gated probe, whose listings wait for no plugin; and the FIFO that lets it start.
    static func host() throws -> (SpawnedHost, gate: String) {
        let folder = try BinaryHarness.temporaryFolder("late")
        let gate = folder + "/gate"
        #expect(mkfifo(gate, 0o600) == 0)
        let plugins = String(PluginBinaryTests.fixtures.dropLast("/plugins".count)) + "/gated"
        let host = try SpawnedHost(arguments: ["serve", "--plugins", plugins, "--backend", "memory", "--plugin-grace", "500", "--plugin-wait", "0"],
                                   environment: ["PROBE_GATE": gate, "XDG_CONFIG_HOME": folder])
        return (host, gate)
    }

    static func open(_ gate: String) {
        let writer = Glibc.open(gate, O_WRONLY)
        #expect(writer >= 0)
        _ = write(writer, "go\n", 3)
        close(writer)
    }

    @Test("MCP face: tools/list before the plugin came lacks its tools; when it starts, notifications/tools/list_changed, then tools/list has them")
    func mcpClientIsTold() throws {
        let (host, gate) = try Self.host()
        _ = try MCPServerBinaryTests.call(host, 1, "initialize", #"{"protocolVersion":"2025-11-25",\#(MCPServerBinaryTests.clientInfo)}"#)
        try host.send(BinaryHarness.notification("notifications/initialized"))
        let before = try #require(try MCPServerBinaryTests.call(host, 2, "tools/list")["result"])
        #expect(!(before["tools"]?.arrayValue ?? []).contains { $0["name"] == "gate.echo" })
        Self.open(gate)
        _ = try MCPServerBinaryTests.notification("notifications/tools/list_changed", from: host)
        let after = try #require(try MCPServerBinaryTests.call(host, 3, "tools/list")["result"])
        #expect((after["tools"]?.arrayValue ?? []).contains { $0["name"] == "gate.echo" })
        #expect(after["nextCursor"] == nil)
    }

    @Test("plain face: host.methods before the plugin came lacks its methods; when it starts, host.methodsChanged {namespace}")
    func plainClientIsTold() throws {
        let (host, gate) = try Self.host()
        let before = try PluginBinaryTests.call(host, 1, "host.methods")["result"]?.arrayValue ?? []
        #expect(!before.contains { $0["name"] == "gate.echo" })
        Self.open(gate)
        let pushed = try MCPServerBinaryTests.notification("host.methodsChanged", from: host)
        #expect(pushed["params"]?["namespace"] == "gate")
        let after = try PluginBinaryTests.call(host, 2, "host.methods")["result"]?.arrayValue ?? []
        #expect(after.contains { $0["name"] == "gate.echo" })
    }
}
