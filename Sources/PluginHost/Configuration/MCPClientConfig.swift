import Jansson

/// The configuration files MCP clients already use, read as plugins: Claude Desktop's
/// `{"mcpServers": {NAME: {"command", "args"?, "env"?}}}` and VS Code's
/// `{"servers": {NAME: {"type": "stdio", "command", "args"?, "env"?}}}`. Each entry's name is its namespace.
public enum MCPClientConfig {
    /// One plugin per entry, or the reason an entry was refused (kept by name, to be listed as invalid).
    public static func entries(in value: JSONValue, file: String) throws(ManifestError) -> [(name: String, manifest: Result<PluginManifest, ManifestError>)] {
        guard let root = value.objectValue else { throw ManifestError("\(file): not a JSON object") }
        guard let servers = (root["mcpServers"] ?? root["servers"])?.objectValue else {
            throw ManifestError("\(file): has neither an \"mcpServers\" nor a \"servers\" object")
        }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return servers.map { name, entry in
            (name, Result { () throws(ManifestError) in try manifest(name: name, entry: entry, folder: folder.isEmpty ? "." : folder, file: file) })
        }
    }

    private static func manifest(name: String, entry: JSONValue, folder: String, file: String) throws(ManifestError) -> PluginManifest {
        guard let object = entry.objectValue else { throw ManifestError("\(name): not a JSON object") }
        let reader = MemberReader(object: object, allowed: [])
        if let type = try reader.string("type"), type != "stdio" {
            throw ManifestError("\(name): type: only \"stdio\" servers can be plugins")
        }
        let program = try reader.requiredString("command")
        let arguments = try reader.strings("args")
        let cwd = try reader.string("cwd")
        let env = try reader.stringMap("env")
        let sandbox: SandboxSetting
        if let declared = object["sandbox"] {
            do {
                sandbox = try SandboxSetting(json: declared)
            } catch {
                throw ManifestError("\(name): \(error.description)")
            }
        } else {
            sandbox = .confined(defaultPolicy(arguments: arguments, cwd: cwd, env: env))
        }
        return PluginManifest(
            name: name, version: "", namespace: name, command: [program] + arguments,
            cwd: cwd ?? folder, env: env, origin: "\(file) (\(name))", sandbox: sandbox
        )
    }

    /// Launcher caches a server's command may need, read-only, when they exist (`~` is the host's home).
    static let launcherCaches = ["~/.cache/uv", "~/.npm"]

    /// The sandbox of an entry that declares none: the defaults, plus read-write for each existing absolute
    /// path in its `args`, `cwd` and `env` values (the user pointed the server there), free of links and
    /// dots, but never the root (`/.`, `//` and `/tmp/..` are the root too), plus the launcher caches
    /// read-only. The command's venv is readable like every plugin's (``SandboxPlan``).
    static func defaultPolicy(arguments: [String], cwd: String?, env: [String: String]) -> SandboxPolicy {
        let named = arguments + [cwd].compactMap { $0 } + env.keys.sorted().compactMap { env[$0] }
        var policy = SandboxPolicy()
        var seen: Set<String> = []
        policy.write = named.filter { $0.hasPrefix("/") && FileText.exists($0) }.map(FileText.absolute)
            .filter { $0 != "/" && seen.insert($0).inserted }
        policy.read = launcherCaches.filter { FileText.exists(SandboxPlan.expandHome($0)) }
        return policy
    }
}
