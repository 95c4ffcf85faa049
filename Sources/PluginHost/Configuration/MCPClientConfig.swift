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
        return PluginManifest(
            name: name, version: "", namespace: name, command: [program] + (try reader.strings("args")),
            cwd: try reader.string("cwd") ?? folder, env: try reader.stringMap("env"), origin: "\(file) (\(name))"
        )
    }
}
