#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SwitchboardCore

/// A plugin's sandbox resolved for one start: the declared policy (``SandboxPolicy``) with its paths
/// expanded and the defaults added — the plugin's folder, its executable and interpreter (and the venv they
/// live in), the system locations programs need, a few devices; writable, its private data folder and a
/// private temporary folder. A path that does not exist is reported in `missing`, not fatal.
struct SandboxPlan: Sendable {
    /// Read (and execute) beneath these.
    var read: [String] = []
    /// Read and write beneath these.
    var write: [String] = []
    /// Devices to read and write (`/dev/null`, …).
    var devices: [String] = []
    /// Declared paths that do not exist (not in the ruleset).
    var missing: [String] = []
    /// The declared paths of `missing` as expanded: a plan made before one of them appeared is out of date.
    var absent: [String] = []
    var network: SandboxPolicy.Network
    var limits: SandboxLimits
    /// `$XDG_DATA_HOME/switchboard/plugins/<name>`.
    let dataFolder: String

    /// What every program needs to read, when present. `/proc` is readable as a whole: Landlock keeps a
    /// plugin from the `/proc/PID` files of processes outside its sandbox (it may not ptrace them).
    static let systemReads = ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/run/systemd/resolve"]
    static let systemDevices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"]

    /// The plan for `manifest`'s `policy`, the program being `program` (resolved) and `searchPath` the plugin's PATH.
    static func make(manifest: PluginManifest, policy: SandboxPolicy, program: String?, searchPath: String?,
                     lookup: (String) -> String? = PluginEnvironment.hostVariable) -> SandboxPlan {
        let data = dataFolder(for: manifest.name, lookup: lookup)
        var plan = SandboxPlan(network: policy.network, limits: policy.limits, dataFolder: data)
        let home = lookup("HOME")
        func expand(_ path: String) -> String? {
            var text = path
            if text == "~" || text.hasPrefix("~/") {
                guard let home, home.hasPrefix("/") else { return nil }
                text = home + text.dropFirst()
            }
            if text.contains("${pluginDir}") {
                guard let folder = manifest.folder else { return nil }
                text = text.replacing("${pluginDir}", with: folder)
            }
            text = text.replacing("${dataDir}", with: data)
            return PathText.resolve(text, against: manifest.folder ?? manifest.cwd)
        }
        func add(_ declared: [String], to list: WritableKeyPath<SandboxPlan, [String]>) {
            for path in declared {
                // The data folder is made at start (``apply``): it counts as there.
                let expanded = expand(path)
                if let expanded, expanded == data || FileText.exists(expanded) {
                    plan[keyPath: list].append(expanded)
                } else {
                    plan.missing.append(path)
                    if let expanded { plan.absent.append(expanded) }
                }
            }
        }
        // A plugin.json's own folder and its working folder (its "cwd" names where it runs from), free of
        // links and dots, but never the root or a folder holding the user's home: a "cwd" of "../../.."
        // would read the user's files unseen.
        let realHome = home.map(FileText.absolute)
        let own = manifest.folder.map { [$0, manifest.cwd] }?.filter(FileText.exists).map(FileText.absolute)
            .filter { !Self.holds($0, realHome) } ?? []
        plan.read = own + systemReads.filter(FileText.exists)
        if let program { plan.read += executableReads(program, searchPath: searchPath) }
        plan.read += programFolders(searchPath: searchPath).filter { folder in
            let real = FileText.absolute(folder)
            return real != "/" && real != realHome && folder != home && folder + "/" != home
        }
        plan.devices = systemDevices.filter(FileText.exists)
        plan.write = [data]
        add(policy.read, to: \.read)
        add(policy.write, to: \.write)
        plan.read = unique(plan.read)
        plan.write = unique(plan.write)
        return plan
    }

    /// Whether granting `folder` would grant the root or the user's home with it.
    static func holds(_ folder: String, _ home: String?) -> Bool {
        folder == "/" || home.map { $0 == folder || $0.hasPrefix(folder + "/") } ?? false
    }

    /// `$XDG_DATA_HOME/switchboard/plugins/<name>`, else `~/.local/share/…`, else under the temporary folder.
    static func dataFolder(for name: String, lookup: (String) -> String?) -> String {
        let base: String = if let xdg = lookup("XDG_DATA_HOME"), xdg.hasPrefix("/") {
            xdg
        } else if let home = lookup("HOME"), home.hasPrefix("/") {
            home + "/.local/share"
        } else {
            "/tmp/switchboard-\(getuid())"
        }
        return base + "/switchboard/plugins/" + name
    }

    /// `~` and `~/…` with the host's home.
    static func expandHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = PluginEnvironment.hostVariable("HOME") else { return path }
        return home + path.dropFirst()
    }

    // MARK: The executable

    /// The program, its `#!` interpreter (through `/usr/bin/env NAME` too), and the venv either lives in
    /// (with the Python installation its `pyvenv.cfg` names).
    static func executableReads(_ program: String, searchPath: String?) -> [String] {
        var reads = [program]
        var interpreter: String?
        if let line = firstLine(of: program), line.hasPrefix("#!") {
            let words = line.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if let first = words.first {
                reads.append(first)
                interpreter = first
                if first.hasSuffix("/env"), let name = words.dropFirst().first(where: { !$0.hasPrefix("-") }),
                   let resolved = PluginEnvironment.resolveProgram(name, path: searchPath) {
                    reads.append(resolved)
                    interpreter = resolved
                }
            }
        }
        for executable in [program, interpreter].compactMap({ $0 }) {
            reads += venvReads(of: executable)
        }
        return reads
    }

    /// The venv `executable` lies in (`VENV/bin/…` beside `VENV/pyvenv.cfg`), and the installation its
    /// `home` names when that is outside the system folders.
    static func venvReads(of executable: String) -> [String] {
        let parts = executable.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 3, parts[parts.count - 2] == "bin" else { return [] }
        let venv = "/" + parts.dropLast(2).joined(separator: "/")
        guard let config = try? RegularFile.read(venv + "/pyvenv.cfg", limit: 16_384) else { return [] }
        var reads = [venv]
        for line in String(decoding: config, as: UTF8.self).split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimming(\.isWhitespace) }
            guard pair.count == 2, pair[0] == "home", pair[1].hasPrefix("/") else { continue }
            let home = pair[1].hasSuffix("/bin") ? String(pair[1].dropLast(4)) : pair[1]
            if !systemReads.contains(where: { home == $0 || home.hasPrefix($0 + "/") }) { reads.append(home) }
        }
        return reads
    }

    /// The folders of the plugin's PATH (the programs it may run), and for a version manager's `shims`
    /// folder (pyenv, rbenv, asdf) the manager's own folder, which its shims run from.
    static func programFolders(searchPath: String?) -> [String] {
        (searchPath ?? "").split(separator: ":").flatMap { part -> [String] in
            let folder = String(part)
            guard folder.hasPrefix("/"), FileText.exists(folder) else { return [] }
            guard folder.hasSuffix("/shims") else { return [folder] }
            return [folder, String(folder.dropLast("/shims".count))].filter { !$0.isEmpty }
        }
    }

    /// The first line of a file (at most 256 bytes), or nil.
    private static func firstLine(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].prefix { $0 != 10 }, as: UTF8.self)
    }

    private static func unique(_ paths: [String]) -> [String] {
        var seen: Set<String> = []
        return paths.filter { seen.insert($0).inserted }
    }
}
