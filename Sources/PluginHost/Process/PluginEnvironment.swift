#if canImport(Glibc)
import Glibc
#endif

/// The environment a plugin starts with: never the host's whole environment (it holds tokens), only
/// what the official MCP SDKs pass, the manifest's `passEnv` names and its `env`.
public enum PluginEnvironment {
    /// Passed from the host when set: what the MCP SDKs' stdio clients pass by default.
    public static let inherited = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]

    /// `NAME=value` pairs, sorted by name; `lookup` reads the host's environment.
    static func make(for manifest: PluginManifest, lookup: (String) -> String? = hostVariable) -> [String: String] {
        var environment: [String: String] = [:]
        for name in inherited + manifest.passEnv {
            if let value = lookup(name) { environment[name] = value }
        }
        environment.merge(manifest.env) { _, manifestValue in manifestValue }
        return environment
    }

    static func hostVariable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The program's path: as given when it holds a `/`, else the first executable file of that name in
    /// the plugin's `PATH` (not the host's).
    static func resolveProgram(_ program: String, path: String?) -> String? {
        if program.contains("/") { return program }
        let folders = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for folder in folders where !folder.isEmpty {
            let candidate = folder + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
