import Foundation
import Jansson
import JSONRPC
@testable import PluginHost
import Testing

@Suite("Plugin manifests and configuration")
struct ManifestTests {
    @Test("A plugin.json is read with its defaults, and a relative program resolves against its folder")
    func readsAManifest() throws {
        let value = try JSONValue(parsing: #"{"name":"w","version":"1","namespace":"weather","command":["./run","--x"],"calls":["feed.*"]}"#)
        let manifest = try PluginManifest(pluginJSON: value, folder: "/p/w")
        #expect(manifest.command == ["/p/w/run", "--x"])
        #expect(manifest.cwd == "/p/w")
        #expect(manifest.timeoutMilliseconds == 30_000)
        #expect(manifest.calls == ["feed.*"])
    }

    @Test("The shipped weather manifest, with its sandbox's network allow-list, is read (the member is accepted)")
    func readsTheWeatherManifestWithItsSandbox() throws {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
        let text = try String(contentsOfFile: path + "/Plugins/weather/plugin.json", encoding: .utf8)
        let value = try JSONValue(parsing: text)
        #expect(value["sandbox"]?["network"]?["allow"] == ["api.open-meteo.com:443", "geocoding-api.open-meteo.com:443",
                                                           "archive-api.open-meteo.com:443"])
        let manifest = try PluginManifest(pluginJSON: value, folder: path + "/Plugins/weather")
        #expect(manifest.namespace == "weather")
        #expect(manifest.passEnv == ["WEATHER_OFFLINE"])
    }

    @Test("A broken manifest names the member at fault")
    func refusesABrokenManifest() throws {
        let missing = try JSONValue(parsing: #"{"name":"w","version":"1","namespace":"weather"}"#)
        #expect(throws: ManifestError("command: required, an array of strings")) { try PluginManifest(pluginJSON: missing, folder: "/p") }
        let unknown = try JSONValue(parsing: #"{"name":"w","version":"1","namespace":"n","command":["x"],"shell":true}"#)
        #expect(throws: ManifestError.self) { try PluginManifest(pluginJSON: unknown, folder: "/p") }
    }

    @Test("Core namespaces, MCP prefixes and malformed names are refused; a taken namespace goes to the first plugin")
    func refusesNamespaces() {
        let policy = NamespacePolicy(hostMethods: ["calendar.agenda", "tools/list", "ping"])
        #expect(policy.refusal(of: "calendar") != nil)
        #expect(policy.refusal(of: "Tools") != nil)
        #expect(policy.refusal(of: "ping") != nil)
        #expect(policy.refusal(of: "notifications") != nil)
        #expect(policy.refusal(of: "we.ather") != nil)
        #expect(policy.refusal(of: "") != nil)
        #expect(policy.refusal(of: "weather") == nil)
        #expect(NamespacePolicy(hostMethods: []).refusal(of: "calendar") == nil, "a namespace is the host's by being registered")
        let first = PluginManifest(name: "a", version: "1", namespace: "x", command: ["a"], cwd: "/", origin: "a")
        let second = PluginManifest(name: "b", version: "1", namespace: "x", command: ["b"], cwd: "/", origin: "b")
        let entries = PluginConfiguration.refuseConflicts([.valid(first), .valid(second)], policy: policy)
        guard case .valid = entries[0], case .invalid(let name, _, _, let reason) = entries[1] else {
            Issue.record("expected the second to be refused")
            return
        }
        #expect(name == "b")
        #expect(reason.contains("taken by plugin a"))
    }

    @Test("Both MCP client configuration formats become plugins named after their entries")
    func readsMCPConfigs() throws {
        let claude = try JSONValue(parsing: #"{"mcpServers":{"files":{"command":"npx","args":["-y","srv"],"env":{"K":"v"}}}}"#)
        let entries = try MCPClientConfig.entries(in: claude, file: "/c/claude.json")
        let manifest = try #require(try entries.first?.manifest.get())
        #expect(manifest.namespace == "files")
        #expect(manifest.command == ["npx", "-y", "srv"])
        #expect(manifest.env == ["K": "v"])
        let vscode = try JSONValue(parsing: #"{"servers":{"web":{"type":"http","url":"https://x"},"git":{"type":"stdio","command":"git-mcp"}}}"#)
        let both = try MCPClientConfig.entries(in: vscode, file: "/c/mcp.json")
        #expect(both.count == 2)
        #expect(both.contains { $0.name == "git" && (try? $0.manifest.get()) != nil })
        #expect(both.contains { $0.name == "web" && (try? $0.manifest.get()) == nil })
    }

    @Test("Calls patterns: exact names, namespace wildcards")
    func matchesCallPatterns() {
        #expect(CallbackRouter.matches("calendar.agenda", ["calendar.agenda"]))
        #expect(CallbackRouter.matches("feed.list", ["feed.*"]))
        #expect(!CallbackRouter.matches("feedx.list", ["feed.*"]))
        #expect(!CallbackRouter.matches("mail.send", ["feed.*", "calendar.agenda"]))
    }

    @Test("The environment is clean: the SDKs' variables, passEnv, then env")
    func buildsACleanEnvironment() {
        var manifest = PluginManifest(name: "a", version: "1", namespace: "a", command: ["a"], cwd: "/", origin: "a")
        manifest.passEnv = ["LANG"]
        manifest.env = ["PATH": "/opt/bin"]
        let host = ["HOME": "/root", "PATH": "/usr/bin", "LANG": "C", "SECRET_TOKEN": "x"]
        let environment = PluginEnvironment.make(for: manifest) { host[$0] }
        #expect(environment == ["HOME": "/root", "PATH": "/opt/bin", "LANG": "C"])
    }
}
