#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Synchronization

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
final class PrivateTemporaryFolders: Sendable {
    /// `NS-PID-START` of this host, nil where `/proc` cannot say (then the folders have no host in their name).
    private let instance: String? = HostInstance.name()
    /// The parents already swept of stale folders.
    private let swept = Mutex<Set<String>>([])

    init() {}

    static let prefix = "switchboard-plugin-"

    /// A new private temporary folder in `parent`; nil with errno set when mkdtemp fails.
    func make(in parent: String) -> String? {
        let name = Self.prefix + (instance.map { $0 + "-" } ?? "") + "XXXXXX"
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
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(hostPrefix) else { continue }
            let parts = name.dropFirst(hostPrefix.count).split(separator: "-", omittingEmptySubsequences: false)
            if parts.count == 3, HostInstance.isGone(pid: parts[0], start: parts[1]) { stale.append(name) }
        }
        let parentFD = dirfd(folder)
        return stale.filter { sb_remove_tree_at(parentFD, $0, 0) == 0 }
    }

    /// Removes a run's folder and what the plugin left in it, following no link.
    static func remove(_ folder: String) {
        sb_remove_tree(folder)
    }
}
