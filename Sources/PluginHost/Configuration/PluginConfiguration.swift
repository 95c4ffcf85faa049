#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Logging
import SwitchboardCore
import SystemCalls

/// The plugins the host knows of, valid or not, in the order they were found: each `--plugins`
/// folder's sub-folders holding a `plugin.json`, then `$XDG_CONFIG_HOME/switchboard/plugins`, then
/// each `--mcp-config` file's entries. A refused one stays listed (`invalid`, with the reason); the
/// first to claim a namespace or a name keeps it.
public struct PluginConfiguration: Sendable {
    public enum Entry: Sendable {
        case valid(PluginManifest)
        case invalid(name: String, namespace: String, version: String, reason: String)
        /// A plugin whose manifest and namespace were accepted but that cannot run as configured (its
        /// `--plugin-sandbox` file holds no sandbox): `invalid` too, yet its namespace stays its own, so a
        /// call into it is answered `-32070` with `reason: "invalid"`, not taken for an unknown method.
        case unusable(PluginManifest, reason: String)
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Reads the folders and files; every refusal is logged once. `policy` names the host's namespaces;
    /// it is made only when a plugin is found (a fresh host without plugins would build its method
    /// table twice for it, a third of its start-up's instructions).
    public static func load(pluginFolders: [String], mcpConfigs: [String], includeUserFolder: Bool = true,
                            policy: @autoclosure () -> NamespacePolicy, logger: Logger) -> PluginConfiguration {
        var found: [Entry] = []
        var folders = pluginFolders
        if includeUserFolder, let user = userFolder() { folders.append(user) }
        // Absolute, so a plugin's folder means the same from its own working folder.
        for folder in folders.map(FileText.absolute) {
            for sub in FileText.subfolders(of: folder) where FileText.exists(sub + "/plugin.json") {
                found.append(readManifest(folder: sub))
            }
        }
        for file in mcpConfigs.map(FileText.absolute) {
            do {
                let value = try FileText.readJSON(file)
                for (name, result) in try MCPClientConfig.entries(in: value, file: file) {
                    switch result {
                    case .success(let manifest): found.append(.valid(manifest))
                    case .failure(let error): found.append(.invalid(name: name, namespace: name, version: "", reason: error.description))
                    }
                }
            } catch {
                logger.error("--mcp-config \(error)")
            }
        }
        let configuration = PluginConfiguration(entries: found.isEmpty ? [] : refuseConflicts(found, policy: policy()))
        for case .invalid(let name, _, _, let reason) in configuration.entries {
            logger.error("plugin \(name) is not loaded: \(reason)")
        }
        return configuration
    }

    /// `$XDG_CONFIG_HOME/switchboard/plugins`, else `~/.config/switchboard/plugins`.
    static func userFolder() -> String? {
        if let xdg = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") { return xdg + "/switchboard/plugins" }
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") { return home + "/.config/switchboard/plugins" }
        return nil
    }

    static func readManifest(folder: String) -> Entry {
        let fallbackName = String(folder.split(separator: "/").last ?? "plugin")
        do {
            let value = try FileText.readJSON(folder + "/plugin.json")
            return .valid(try PluginManifest(pluginJSON: value, folder: folder))
        } catch let error as ManifestError {
            return .invalid(name: fallbackName, namespace: "", version: "", reason: "\(folder)/plugin.json: \(error)")
        } catch {
            return .invalid(name: fallbackName, namespace: "", version: "", reason: "\(error)")
        }
    }

    /// Refuses reserved or invalid namespaces, and a namespace or name already taken.
    static func refuseConflicts(_ entries: [Entry], policy: NamespacePolicy) -> [Entry] {
        var namespaces: [String: String] = [:]
        var names: Set<String> = []
        return entries.map { entry in
            guard case .valid(let manifest) = entry else {
                if case .invalid(let name, _, _, _) = entry { names.insert(name) }
                return entry
            }
            let refusal: String? = if let reason = policy.refusal(of: manifest.namespace) {
                reason
            } else if let owner = namespaces[manifest.namespace] {
                "namespace \"\(manifest.namespace)\" is taken by plugin \(owner)"
            } else if names.contains(manifest.name) {
                "another plugin is named \"\(manifest.name)\""
            } else {
                nil
            }
            names.insert(manifest.name)
            if let refusal {
                return .invalid(name: manifest.name, namespace: manifest.namespace, version: manifest.version, reason: refusal)
            }
            namespaces[manifest.namespace] = manifest.name
            return entry
        }
    }
}

/// Small file reads for configuration, with no Foundation.
enum FileText {
    static let maxBytes = 1 << 20

    /// Why a configuration file could not be read: names the file and the reason, never its content.
    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The JSON document in `path` (at most 1 MiB, a regular file: a FIFO or a device is refused without
    /// waiting). Not JSON: the kind of error and its line and column, quoting none of the text.
    static func readJSON(_ path: String) throws(ReadError) -> JSONValue {
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, limit: maxBytes)
        } catch {
            throw ReadError(description: "\(path): \(error)")
        }
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw ReadError(description: "\(path): cannot be read as JSON: \(error.descriptionWithoutText)")
        }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// `path` made absolute and free of links (realpath), or as given when it does not exist.
    static func absolute(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folders directly inside `folder`, sorted by name; none if it cannot be read.
    static func subfolders(of folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = DirectoryEntry.name(of: entry)
            guard !name.hasPrefix(".") else { continue }
            var info = stat()
            let path = folder + "/" + name
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { names.append(path) }
        }
        return names.sorted()
    }
}

extension PluginConfiguration {
    /// Replaces the sandbox of the plugins named in `files` (`--plugin-sandbox NAME=FILE`: the file holds a
    /// `"sandbox"` value) and `unconfined` (`--unconfined-plugin NAME`: run unconfined). A file that cannot be
    /// read or holds no valid sandbox makes its plugin invalid, with the reason; a name no plugin has is logged.
    public func overridingSandboxes(files: [String: String], unconfined: Set<String>, logger: Logger) -> PluginConfiguration {
        var known: Set<String> = []
        let entries = entries.map { entry -> Entry in
            guard case .valid(var manifest) = entry else { return entry }
            known.insert(manifest.name)
            if unconfined.contains(manifest.name) {
                manifest.sandbox = .unconfined
            } else if let file = files[manifest.name] {
                do {
                    manifest.sandbox = try SandboxSetting(json: try FileText.readJSON(file))
                } catch {
                    let reason = "--plugin-sandbox \(manifest.name)=\(file): \(error)"
                    logger.error("plugin \(manifest.name) is not loaded: \(reason)")
                    return .unusable(manifest, reason: reason)
                }
            }
            return .valid(manifest)
        }
        for name in Set(files.keys).union(unconfined).subtracting(known).sorted() {
            logger.warning("--plugin-sandbox / --unconfined-plugin name no plugin: \(name)")
        }
        return PluginConfiguration(entries: entries)
    }
}
