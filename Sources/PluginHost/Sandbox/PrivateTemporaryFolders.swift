#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Synchronization
import SystemCalls

/// The private temporary folders of confined runs (their `HOME`, `TMPDIR`, `XDG_CACHE_HOME`, …):
/// `switchboard-plugin-NS-PID-START-XXXXXX` in the temporary parent, named after the host (``HostInstance``) and
/// made by mkdtemp (new, mode 0700, ours).
///
/// A host that was killed leaves its folders behind. Before the first confined run of a host starts (on the spawn
/// thread, ahead of every spawn), it removes the folders of hosts in its pid namespace that are gone
/// (``removeStale(in:namespace:)``): only folders (no link is followed, each is removed as itself) that the effective
/// user owns, and never one whose host is alive (same pid and start time). Folders of another pid namespace are left
/// to hosts there. Old-style `switchboard-plugin-XXXXXX` folders (hosts before this naming) say no host: they are left
/// alone, since one may still be the `HOME` of a running plugin of an older host (a plugin need not hold its
/// folder open, so "no process has it open" would not prove it unused).
///
/// Each plugin keeps its folder from one run to the next (``take(for:in:)``, ``end(_:of:)``): a run's end empties it
/// (what the plugin left goes, as before, so each run starts with an empty folder) instead of removing it: making
/// and removing a folder each start cost this machine's ext4 ~100 µs and 30 µs–1.5 ms. A run that starts while
/// another run of the same plugin still has the folder gets a new one, removed at its end. The host's exit removes the kept folders (``removeAll()``). A process a run left
/// behind (one that escaped its process group) can still reach the folder while the next run of the same plugin
/// uses it, as it shares that plugin's kept namespaces.
final class PrivateTemporaryFolders: Sendable {
    /// `NS-PID-START` of this host, nil where `/proc` cannot say (then the folders have no host in their name).
    /// Read at the first folder made: a host that starts no confined plugin (a one-shot `call`) never reads `/proc`.
    private static let instance: String? = HostInstance.name()
    /// The parents already swept of stale folders.
    private let swept = Mutex<Set<String>>([])
    /// Each plugin's kept folder, and whether a run has it now.
    private let kept = Mutex<[String: (folder: String, inUse: Bool)]>([:])

    init() {}

    static let prefix = "switchboard-plugin-"

    /// The private temporary folder for a run of `plugin`: its kept folder in `parent` when no run has it and it is
    /// still our folder there, else a new one (kept for later runs unless another run has the kept one). Nil with
    /// errno set when mkdtemp fails.
    func take(for plugin: String, in parent: String) -> String? {
        let reused = kept.withLock { folders -> String? in
            guard let entry = folders[plugin], !entry.inUse else { return nil }
            guard entry.folder.hasPrefix(parent + "/"), Self.isOurFolder(entry.folder) else {
                folders[plugin] = nil
                return nil
            }
            folders[plugin]?.inUse = true
            return entry.folder
        }
        if let reused { return reused }
        guard let made = make(in: parent) else { return nil }
        kept.withLock { folders in
            if folders[plugin]?.inUse != true { folders[plugin] = (made, true) }
        }
        return made
    }

    /// The end of a run that had `folder`: emptied and free for `plugin`'s next run if it is the kept one, else
    /// removed (also when it could not be emptied). Blocks: the run's reaper thread.
    func end(_ folder: String, of plugin: String) {
        let isKept = kept.withLock { $0[plugin]?.folder == folder }
        guard isKept, sb_remove_tree(folder, 1) == 0 else {
            kept.withLock { folders in
                if folders[plugin]?.folder == folder { folders[plugin] = nil }
            }
            sb_remove_tree(folder, 0)
            return
        }
        kept.withLock { folders in
            if folders[plugin]?.folder == folder { folders[plugin]?.inUse = false }
        }
    }

    /// Removes every kept folder (at the host's exit, once its plugins were stopped).
    func removeAll() {
        let folders = kept.withLock { folders in
            defer { folders = [:] }
            return folders.values.map(\.folder)
        }
        for folder in folders { sb_remove_tree(folder, 0) }
    }

    /// Whether `path` is a folder (not a link) the effective user owns.
    private static func isOurFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == geteuid()
    }

    /// A new private temporary folder in `parent`; nil with errno set when mkdtemp fails.
    private func make(in parent: String) -> String? {
        let name = Self.prefix + (Self.instance.map { $0 + "-" } ?? "") + "XXXXXX"
        var template = Array((parent + "/" + name).utf8CString)
        guard template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) != nil else { return nil }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the stale folders in `parent` the first time it is asked for `parent` (blocks: call it on the spawn
    /// thread); at once after that.
    func sweepOnce(_ parent: String) {
        guard swept.withLock({ $0.insert(parent).inserted }), let namespace = HostInstance.pidNamespace() else { return }
        Self.removeStale(in: parent, namespace: namespace)
    }

    /// Removes the folders in `parent` of hosts in the pid namespace `namespace` that are gone; returns their names.
    @discardableResult
    static func removeStale(in parent: String, namespace: String) -> [String] {
        guard let folder = opendir(parent) else { return [] }
        defer { closedir(folder) }
        let hostPrefix = prefix + namespace + "-"
        var stale: [String] = []
        while let entry = readdir(folder) {
            let name = DirectoryEntry.name(of: entry)
            if HostInstance.isLeftByGoneHost(name, prefix: hostPrefix, suffixed: true) { stale.append(name) }
        }
        let parentFD = dirfd(folder)
        return stale.filter { sb_remove_tree_at(parentFD, $0, 0) == 0 }
    }
}

/// A run's private temporary folder, handed back at the run's end (``PrivateTemporaryFolders/end(_:of:)``).
struct TemporaryFolderLease: Sendable {
    let folder: String
    let plugin: String
    let folders: PrivateTemporaryFolders

    func end() { folders.end(folder, of: plugin) }
}
