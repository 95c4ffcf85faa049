import Jansson

/// What the host knows of a plugin before starting it: a folder's `plugin.json`, or an entry of an
/// MCP client's configuration file.
///
/// ```json
/// {"name": "weather", "version": "1.0.0", "namespace": "weather", "command": ["python3", "weather.py"],
///  "env": {"UNITS": "metric"}, "passEnv": ["LANG"], "timeoutMs": 30000, "calls": ["calendar.agenda"]}
/// ```
public struct PluginManifest: Sendable, Equatable {
    public var name: String
    public var version: String
    public var namespace: String
    public var description: String?
    /// The program and its arguments, run without a shell.
    public var command: [String]
    /// The working folder; a relative program path resolves against it too.
    public var cwd: String
    public var env: [String: String]
    /// Names of the host's environment variables passed on as they are.
    public var passEnv: [String]
    /// How long one call may take, in milliseconds.
    public var timeoutMilliseconds: Int
    /// Host methods the plugin may call back: exact names or `namespace.*`.
    public var calls: [String]
    /// Where it was read from: the folder, or the configuration file and entry.
    public var origin: String
    /// The plugin's own folder (`${pluginDir}`, readable by default); nil for an `--mcp-config` entry.
    public var folder: String?
    /// How it is confined (``SandboxSetting``): the defaults unless the manifest says otherwise.
    public var sandbox: SandboxSetting

    public static let defaultTimeoutMilliseconds = 30_000

    public init(name: String, version: String, namespace: String, description: String? = nil, command: [String],
                cwd: String, env: [String: String] = [:], passEnv: [String] = [],
                timeoutMilliseconds: Int = Self.defaultTimeoutMilliseconds, calls: [String] = [], origin: String,
                folder: String? = nil, sandbox: SandboxSetting = .defaults) {
        self.name = name
        self.version = version
        self.namespace = namespace
        self.description = description
        self.command = command
        self.cwd = cwd
        self.env = env
        self.passEnv = passEnv
        self.timeoutMilliseconds = timeoutMilliseconds
        self.calls = calls
        self.origin = origin
        self.folder = folder
        self.sandbox = sandbox
    }
}

extension PluginManifest {
    /// Reads a `plugin.json` of the folder `folder`; throws ``ManifestError`` naming the member at fault.
    /// `sandbox` (what the plugin may reach, e.g. `{"network": {"allow": ["host:443"]}}`) is accepted and
    /// not yet applied.
    public init(pluginJSON value: JSONValue, folder: String) throws(ManifestError) {
        guard let object = value.objectValue else { throw ManifestError("plugin.json is not a JSON object") }
        let reader = MemberReader(object: object, allowed: ["name", "version", "namespace", "description", "command", "cwd",
                                                            "env", "passEnv", "timeoutMs", "calls", "sandbox"])
        try reader.refuseUnknown()
        let command = try reader.strings("command", required: true)
        guard let program = command.first, !program.isEmpty else { throw ManifestError("command: needs at least the program") }
        let cwd = try reader.string("cwd").map { PathText.resolve($0, against: folder) } ?? folder
        let timeout = try reader.integer("timeoutMs") ?? Self.defaultTimeoutMilliseconds
        guard (1...3_600_000).contains(timeout) else { throw ManifestError("timeoutMs: must be 1...3600000, got \(timeout)") }
        self.init(
            name: try reader.requiredString("name"), version: try reader.requiredString("version"),
            namespace: try reader.requiredString("namespace"), description: try reader.string("description"),
            command: [program.contains("/") ? PathText.resolve(program, against: folder) : program] + command.dropFirst(),
            cwd: cwd, env: try reader.stringMap("env"), passEnv: try reader.strings("passEnv"),
            timeoutMilliseconds: timeout, calls: try reader.strings("calls"), origin: folder, folder: folder,
            sandbox: try object["sandbox"].map { value throws(ManifestError) in try SandboxSetting(json: value) } ?? .defaults
        )
    }
}

/// Why a manifest or a configuration entry was refused; `plugins.list` shows it as `lastError`.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Typed reads of a manifest's members, each failure naming the member.
struct MemberReader {
    let object: JSONObject
    let allowed: Set<String>

    func refuseUnknown() throws(ManifestError) {
        for (name, _) in object where !allowed.contains(name) {
            throw ManifestError("\(JSONFieldError.excerpt(name)): unknown member (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ name: String) throws(ManifestError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue, !text.contains("\0") else { throw ManifestError("\(name): expected a string") }
        return text
    }

    func requiredString(_ name: String) throws(ManifestError) -> String {
        guard let text = try string(name), !text.isEmpty else { throw ManifestError("\(name): required, a non-empty string") }
        return text
    }

    func integer(_ name: String) throws(ManifestError) -> Int? {
        guard let value = object[name], value != .null else { return nil }
        guard let number = value.int64Value, let int = Int(exactly: number) else { throw ManifestError("\(name): expected an integer") }
        return int
    }

    func strings(_ name: String, required: Bool = false) throws(ManifestError) -> [String] {
        guard let value = object[name], value != .null else {
            if required { throw ManifestError("\(name): required, an array of strings") }
            return []
        }
        guard let array = value.arrayValue else { throw ManifestError("\(name): expected an array of strings") }
        var texts: [String] = []
        for (index, element) in array.enumerated() {
            guard let text = element.stringValue, !text.contains("\0") else { throw ManifestError("\(name)[\(index)]: expected a string") }
            texts.append(text)
        }
        return texts
    }

    func stringMap(_ name: String) throws(ManifestError) -> [String: String] {
        guard let value = object[name], value != .null else { return [:] }
        guard let members = value.objectValue else { throw ManifestError("\(name): expected an object of strings") }
        var map: [String: String] = [:]
        for (key, element) in members {
            guard let text = element.stringValue, !text.contains("\0"), !key.contains("="), !key.contains("\0"), !key.isEmpty else {
                throw ManifestError("\(name).\(JSONFieldError.excerpt(key)): expected a string under a variable name")
            }
            map[key] = text
        }
        return map
    }
}

/// Paths as text: joined and tidied without touching the file system.
enum PathText {
    /// `path` if absolute, else `folder/path`.
    static func resolve(_ path: String, against folder: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return path.hasPrefix("./") ? base + "/" + path.dropFirst(2) : base + "/" + path
    }
}
