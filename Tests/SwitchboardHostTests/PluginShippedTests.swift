#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SchemaTesting
import Testing

/// The plugins shipped in `Plugins/` (Python `weather`, bash+jq `words`, the README's example) and a
/// server made with the official MCP Python SDK, unchanged, each through the built binary.
@Suite("Shipped plugins and the MCP SDK (binary)", .serialized, .offCooperativePool)
struct PluginShippedTests {
    static let repository: String = {
        let file = #filePath
        var path = String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)])
        for _ in 0..<2 { path = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
        return path
    }()

    /// The venv's python with the `mcp` package: `$SWITCHBOARD_MCP_PYTHON` (set by scripts/test), else
    /// the venv scripts/mcp-sdk-venv makes.
    static let mcpPython: String? = {
        if let given = getenv("SWITCHBOARD_MCP_PYTHON") { return String(cString: given) }
        let venv = repository + "/.build/mcp-venv/bin/python"
        return access(venv, X_OK) == 0 ? venv : nil
    }()

    /// The weather plugin answers its deterministic stand-ins (source "synthetic") and asks no network.
    static let offlineWeather: [String: String?] = ["WEATHER_OFFLINE": "1"]

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try host.send(BinaryHarness.request(id, method, params))
        return try host.response(to: .integer(Int64(id))).response
    }

    @Test("weather.forecast offline is deterministic from date and place; words.count runs in bash and jq")
    func shippedPlugins() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", Self.repository + "/Plugins", "--backend", "memory",
                                               "--now", "2026-11-23T09:00:00Z"], environment: Self.offlineWeather)
        let params = #"{"date":"2026-11-22","place":"Berlin"}"#
        let first = try #require(try Self.call(host, 1, "weather.forecast", params)["result"])
        #expect(try Self.call(host, 2, "weather.forecast", params)["result"] == first)
        #expect(first["date"] == "2026-11-22")
        #expect(first["conditions"]?.stringValue != nil)
        #expect(first["source"] == "synthetic")
        let refused = try Self.call(host, 3, "weather.forecast", #"{"date":"22.11.2026","place":"Berlin"}"#)
        #expect(refused["error"]?["data"]?["field"] == "date")
        // Plugin answers match the result schemas this host's own rpc.discover gives them (outputSchema).
        let schemas = try AnswerSchemas(openRPC: try Self.call(host, 10, "rpc.discover")["result"] ?? .null)
        try host.send(BinaryHarness.request(11, "weather.forecast", params))
        #expect(schemas.problems(in: try host.response(to: 11).response, answering: "weather.forecast") == [])
        try host.send(BinaryHarness.request(12, "words.count", #"{"text":"a b"}"#))
        #expect(schemas.problems(in: try host.response(to: 12).response, answering: "words.count") == [])
        #expect(schemas.resultSchemas["weather.forecast"]?["required"] != nil)
        let counts = try Self.call(host, 4, "words.count", #"{"text":"one two\nthree"}"#)["result"]
        #expect(counts == ["words": 3, "lines": 2, "characters": 13])
        // weather.agenda calls back the host's calendar.agenda (its manifest's calls allow it) and adds
        // each day's forecast: the agenda view of the calendar app, with weather.
        let agenda = try Self.call(host, 5, "weather.agenda", #"{"from":"2026-11-22","to":"2026-11-23","timeZone":"Europe/Berlin"}"#)
        let days = try #require(agenda["result"]?["days"]?.arrayValue, "\(agenda)")
        #expect(days.compactMap { $0["date"]?.stringValue } == ["2026-11-22", "2026-11-23"])
        #expect(days.allSatisfy { $0["forecast"]?["conditions"]?.stringValue != nil })
        #expect(days.allSatisfy { $0["events"]?.arrayValue != nil })
        #expect(agenda["result"]?["source"] == "synthetic" && days.allSatisfy { $0["forecast"]?["source"] == "synthetic" })
        #expect(schemas.problems(in: agenda, answering: "weather.agenda") == [])
    }

    @Test("switchboard call of a plugin's tool starts the plugin for the call, from --plugins or the user's plugin folder, and prints no list change; plugins.list sees them")
    func callStartsPlugin() throws {
        let given = try BinaryHarness.run(["call", "--plugins", Self.repository + "/Plugins", "--backend", "memory", "words.count", #"{"text":"a b"}"#],
                                          raw: true)
        #expect(given.termination == .exited(0), "\(given.stderr)")
        #expect(try JSONValue(parsing: given.stdout) == ["words": 2, "lines": 1, "characters": 3])
        #expect(!given.stderr.contains("methodsChanged"), "\(given.stderr)")
        // The host's methods about plugins see them too.
        let listed = try BinaryHarness.run(["call", "--plugins", Self.repository + "/Plugins", "--backend", "memory", "plugins.list"], raw: true)
        #expect(listed.termination == .exited(0), "\(listed.stderr)")
        let names = try JSONValue(parsing: listed.stdout)["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names.contains("words") && names.contains("weather"), "\(listed.stdout)")

        let config = try BinaryHarness.temporaryFolder("call-plugins")
        defer { _ = system("rm -rf '\(config)'") }
        #expect(system("mkdir -p '\(config)/switchboard/plugins' && cp -R '\(Self.repository)/Plugins/words' '\(config)/switchboard/plugins/'") == 0)
        let installed = try BinaryHarness.run(["call", "words.count", "text=one two three", "--backend", "memory"],
                                              environment: ["XDG_CONFIG_HOME": config], raw: true)
        #expect(installed.termination == .exited(0), "\(installed.stderr)")
        #expect(try JSONValue(parsing: installed.stdout)["words"] == 3)

        let unknown = try BinaryHarness.run(["call", "words.nosuch", "--backend", "memory"], environment: ["XDG_CONFIG_HOME": config], raw: true)
        #expect(unknown.termination == .exited(1))
        #expect(try JSONValue(parsing: unknown.stderr)["code"] == -32601, "\(unknown.stderr)")
    }

    @Test("The README's minimal bash plugin, taken from the README itself, runs as written")
    func readmeExampleRuns() throws {
        let readme = try #require(PluginBinaryTests.readText(Self.repository + "/Plugins/README.md", limit: 1 << 20))
        let afterFence = try #require(readme.firstRange(of: "```bash\n")?.upperBound)
        let end = try #require(readme[afterFence...].firstRange(of: "```")?.lowerBound)
        let script = String(readme[afterFence..<end])
        let folder = try BinaryHarness.temporaryFolder("readme")
        mkdir(folder + "/words", 0o755)
        try Self.write(script, to: folder + "/words/words.sh", mode: 0o755)
        try Self.write(#"{"name": "words", "version": "1.0.0", "namespace": "words", "command": ["./words.sh"], "timeoutMs": 5000}"#,
                       to: folder + "/words/plugin.json", mode: 0o644)
        let host = try SpawnedHost(arguments: ["serve", "--plugins", folder, "--backend", "memory"])
        #expect(try Self.call(host, 1, "words.count", #"{"text":"one two"}"#)["result"] == ["words": 2, "lines": 1, "characters": 7])
    }

    static func write(_ text: String, to path: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        guard fd >= 0 else { throw BinaryHarness.Failure("cannot write \(path)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw BinaryHarness.Failure("short write to \(path)") }
    }

    @Test("Resources: the domains' and the plugins' listed together and read by URI; an unowned URI is -32602 naming uri")
    func routesResources() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", Self.repository + "/Plugins", "--backend", "memory"],
                                   environment: Self.offlineWeather)
        let listed = try Self.call(host, 1, "resources.list")["result"]?["items"]?.arrayValue ?? []
        #expect(listed.contains { $0["uri"] == "mail://inbox" })
        let templates = try Self.call(host, 2, "resources.templates")["result"]?["items"]?.arrayValue ?? []
        #expect(templates.contains { $0["uriTemplate"] == "weather://forecast/{date}" && $0["owner"] == "weather" })
        #expect(templates.contains { $0["uriTemplate"] == "feed://item/{id}" && $0["owner"] == "host" })
        let item = try Self.call(host, 3, "resources.read", #"{"uri":"feed://item/42"}"#)["result"]?["contents"]?.arrayValue?.first
        #expect(try item?["text"]?.stringValue.map { try JSONValue(parsing: $0) }?["id"] == 42)
        let forecast = try Self.call(host, 4, "resources.read", #"{"uri":"weather://forecast/2026-11-22"}"#)["result"]?["contents"]?.arrayValue?.first
        #expect(forecast?["uri"] == "weather://forecast/2026-11-22")
        for (id, uri) in [(5, "/etc/passwd"), (6, "file:///etc/passwd"), (7, "feed://item/x")] {
            #expect(try Self.call(host, id, "resources.read", #"{"uri":"\#(uri)"}"#)["error"]?["data"]?["field"] == "uri")
        }
    }

    @Test("A FastMCP server from the official Python SDK works unchanged through --mcp-config",
          .enabled(if: mcpPython != nil, "run scripts/mcp-sdk-venv (scripts/test does) to install the mcp package"))
    func officialSDKServer() throws {
        let python = try #require(Self.mcpPython)
        let folder = try BinaryHarness.temporaryFolder("mcp")
        let config = folder + "/claude_desktop_config.json"
        let server = Self.repository + "/Tests/SwitchboardHostTests/Fixtures/fastmcp/server.py"
        let text = #"{"mcpServers":{"notes":{"command":"\#(python)","args":["\#(server)"]}}}"#
        try Self.write(text, to: config, mode: 0o600)
        let host = try SpawnedHost(arguments: ["serve", "--mcp-config", config, "--backend", "memory", "--log-level", "error"])
        #expect(try Self.call(host, 1, "notes.add", #"{"a":2,"b":3}"#)["result"] == ["result": 5])
        #expect(try Self.call(host, 2, "notes.shout", #"{"text":"hi"}"#)["result"] == ["result": "HI"])
        #expect(try Self.call(host, 3, "notes.add", #"{"a":"two","b":3}"#)["error"]?["data"]?["field"] == "a")
        let items = try Self.call(host, 4, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(items.first?["resources"] == ["notes://greeting"])
        // An mcpServers entry has no version of its own: the server's handshake gives it.
        #expect(items.first?["server"]?["name"] == "notes")
        let version = try #require(items.first?["server"]?["version"]?.stringValue)
        #expect(!version.isEmpty && items.first?["version"] == .string(version))
        let discovered = try Self.call(host, 5, "rpc.discover")["result"]?["methods"]?.arrayValue ?? []
        #expect(discovered.first { $0["name"] == "notes.add" }?["params"]?.arrayValue?.count == 2)
    }

    @Test("A server whose command is missing: the call fails startFailed and plugins.list says startFailed too")
    func missingCommandIsOneTruth() throws {
        let folder = try BinaryHarness.temporaryFolder("mcp")
        let config = folder + "/mcp.json"
        try Self.write(#"{"mcpServers":{"gone":{"command":"\#(folder)/no-such-uvx","args":["mcp-server-time"]}}}"#, to: config, mode: 0o600)
        let host = try SpawnedHost(arguments: ["serve", "--mcp-config", config, "--backend", "memory", "--log-level", "error"])
        let failed = try Self.call(host, 1, "gone.now")
        #expect(failed["error"]?["code"] == -32070 && failed["error"]?["data"]?["reason"] == "startFailed", "\(failed)")
        let items = try Self.call(host, 2, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(items.first?["state"] == "startFailed", "\(items)")
        #expect(items.first?["lastError"]?.stringValue?.isEmpty == false)
    }
}
