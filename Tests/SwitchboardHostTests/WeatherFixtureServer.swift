#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SystemCalls

/// Open-Meteo played on 127.0.0.1 by `Fixtures/weather/server.py` from recorded answers, and weather
/// plugin folders pointed at it: the shipped `Plugins/weather/weather.py` under a manifest whose `env`
/// names this server's URLs and a data folder of the test's own.
struct WeatherFixtureServer {
    let process: SpawnedHost
    let port: Int64
    /// Accepts connections and never answers.
    let silentPort: Int64
    /// Nobody listens there.
    let closedPort: Int64
    /// One line per request the server received, written before it answered.
    let log: String
    let folder: String

    init() throws {
        folder = try BinaryHarness.temporaryFolder("weather")
        log = folder + "/requests.log"
        let server = PluginShippedTests.repository + "/Tests/SwitchboardHostTests/Fixtures/weather/server.py"
        process = try SpawnedHost(arguments: ["python3", server, log], executable: "/usr/bin/env", raw: true)
        let ports = try JSONValue(parsing: try process.nextLine())
        guard let port = ports["port"]?.int64Value, let silent = ports["silentPort"]?.int64Value,
              let closed = ports["closedPort"]?.int64Value else { throw BinaryHarness.Failure("server.py said \(ports)") }
        self.port = port
        silentPort = silent
        closedPort = closed
    }

    /// `http://127.0.0.1:PORT/MODE`: MODE `ok` serves the recorded answers, `429` and `500` those errors.
    func base(_ mode: String) -> String { "http://127.0.0.1:\(port)/\(mode)" }

    /// The requests received so far (path and query), in order.
    func requests() -> [String] {
        (PluginBinaryTests.readText(log, limit: 1 << 20) ?? "").split(separator: "\n").map(String.init)
    }

    /// Writes `plugins/NAMESPACE/plugin.json` for the weather plugin at `base`, caching in `data`; returns
    /// the plugins folder. `arguments` go after `weather.py` (`--offline`).
    @discardableResult
    func addPlugin(_ namespace: String, base: String, data: String, timeoutSeconds: String = "8",
                   arguments: [String] = []) throws -> String {
        let plugins = folder + "/plugins"
        mkdir(plugins, 0o755)
        mkdir(plugins + "/" + namespace, 0o755)
        mkdir(data, 0o755)  // a sandbox grants paths that exist when the plugin starts
        // Confined as any plugin, with what these tests need: the script where it lies, the cache folder, and
        // plain network (the fixture server is on the host's 127.0.0.1; the allow-list's proxy is tested apart).
        let script = PluginShippedTests.repository + "/Plugins/weather/weather.py"
        let command = (["python3", script] + arguments).map { #""\#($0)""# }.joined(separator: ", ")
        let manifest = """
            {"name": "\(namespace)", "version": "2.0.0", "namespace": "\(namespace)", "command": [\(command)],
             "env": {"WEATHER_FORECAST_URL": "\(base)/v1/forecast", "WEATHER_GEOCODING_URL": "\(base)/v1/search",
                     "WEATHER_ARCHIVE_URL": "\(base)/v1/archive", "WEATHER_HOME": "Berlin",
                     "WEATHER_DATA_DIR": "\(data)", "WEATHER_TIMEOUT_S": "\(timeoutSeconds)"},
             "timeoutMs": 30000, "calls": ["calendar.agenda"],
             "sandbox": {"read": ["\(PluginShippedTests.repository)/Plugins/weather"], "write": ["\(data)"], "network": true}}
            """
        try PluginShippedTests.write(manifest, to: plugins + "/" + namespace + "/plugin.json", mode: 0o644)
        return plugins
    }

    /// Sets every cache file under `data` back by `seconds`, as if written that long ago.
    static func age(cacheIn data: String, by seconds: Int) throws {
        let cache = data + "/cache"
        guard let listing = opendir(cache) else { throw BinaryHarness.Failure("no cache folder \(cache)") }
        defer { closedir(listing) }
        let then = time(nil) - seconds
        var aged = 0
        while let entry = readdir(listing) {
            let name = DirectoryEntry.name(of: entry)
            guard name.hasSuffix(".json") else { continue }
            var times = [timespec(tv_sec: then, tv_nsec: 0), timespec(tv_sec: then, tv_nsec: 0)]
            guard utimensat(AT_FDCWD, cache + "/" + name, &times, 0) == 0 else { throw BinaryHarness.Failure("utimensat \(name): errno \(errno)") }
            aged += 1
        }
        if aged == 0 { throw BinaryHarness.Failure("no cache files in \(cache)") }
    }
}
