#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import Synchronization

/// The host's pids cgroup folder, where each confined plugin run gets a cgroup of its own whose `pids.max` is its
/// `limits.processes` (``PidsCgroupLeaf``). Unlike RLIMIT_NPROC it binds root too, and counts only the run's own
/// processes (and threads).
///
/// Found once per process (``shared``), beneath the host's own cgroup: cgroup v2 when the host's cgroup offers the
/// `pids` controller and the host may divide it (its `cgroup.subtree_control` has `pids` already, or the host is alone
/// there and moves itself into a leaf `host` of its folder, as the no-internal-processes rule asks), else cgroup v1's
/// `pids` hierarchy where the host may make a folder. Where neither works, plugins keep RLIMIT_NPROC
/// (``unavailableReason`` says why); no plugin start fails for it.
///
/// The folder is `switchboard-NS-PID-START` (the host's pid namespace, pid and start time): a host that was killed
/// leaves it behind, and the next host to look removes it, killing what its plugins left running there.
final class PidsCgroups: Sendable {
    /// The host's folder; nil where none could be made.
    let folder: String?
    /// The cgroup version of `folder` (1 or 2).
    let version: Int?
    /// Why there is no folder.
    let unavailableReason: String?
    /// cgroup v2 only: the host moved itself into `folder/host`, so the folder stays until a later host removes it.
    private let hostInside: Bool
    private let runs = Atomic<Int>(0)

    private init(folder: String?, version: Int?, unavailableReason: String?, hostInside: Bool = false) {
        self.folder = folder
        self.version = version
        self.unavailableReason = unavailableReason
        self.hostInside = hostInside
    }

    private static let made = Mutex<PidsCgroups?>(nil)

    /// The process's folder, found (and made) on first use; stale folders of hosts that are gone are removed on a
    /// thread of their own then.
    static var shared: PidsCgroups {
        made.withLock { slot in
            if let slot { return slot }
            let found = find()
            slot = found
            return found
        }
    }

    /// The folder if ``shared`` was ever used.
    static var ifFound: PidsCgroups? { made.withLock { $0 } }

    /// A run number for a leaf's name.
    func nextRun() -> Int { runs.add(1, ordering: .relaxed).newValue }

    /// Removes the folder at the host's exit (when no run's cgroup is left in it; cgroup v1, or v2 without the
    /// host inside).
    func removeFolder() {
        guard let folder, !hostInside else { return }
        rmdir(folder)
    }

    // MARK: Finding the hierarchy

    private static func find() -> PidsCgroups {
        if let forced = getenv("SWITCHBOARD_TEST_NO_CGROUPS"), String(cString: forced) == "1" {
            return PidsCgroups(folder: nil, version: nil, unavailableReason: "turned off by SWITCHBOARD_TEST_NO_CGROUPS")
        }
        guard let memberships = KernelFile.read("/proc/self/cgroup"), let mounts = KernelFile.read("/proc/self/mountinfo"),
              let name = hostFolderName() else {
            return PidsCgroups(folder: nil, version: nil, unavailableReason: "cannot read /proc/self/cgroup")
        }
        var reasons: [String] = []
        for version in [2, 1] {
            guard let parent = CgroupMount.hostCgroup(version: version, memberships: memberships, mounts: mounts) else { continue }
            let made = version == 2 ? makeV2(parent: parent, name: name) : makeV1(parent: parent, name: name)
            switch made {
            case .success(let found):
                startRemovingStale(in: parent, own: name)
                return found
            case .failure(let reason):
                reasons.append(reason.text)
            }
        }
        return PidsCgroups(folder: nil, version: nil,
                           unavailableReason: reasons.isEmpty ? "no cgroup hierarchy with the pids controller" : reasons.joined(separator: "; "))
    }

    private struct Reason: Error { var text: String }

    private static func describe(_ number: Int32) -> String { String(cString: strerror(number)) }

    private static func makeV1(parent: String, name: String) -> Result<PidsCgroups, Reason> {
        let folder = parent + "/" + name
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else {
            return .failure(Reason(text: "cgroup v1 pids: cannot make a folder in \(parent): \(describe(errno))"))
        }
        return .success(PidsCgroups(folder: folder, version: 1, unavailableReason: nil))
    }

    /// cgroup v2: the folder beneath the host's cgroup, with `pids` enabled for its children. Where the host's cgroup
    /// does not pass `pids` down yet, the host moves itself into `folder/host` first (a cgroup with processes may
    /// not enable controllers for its children), and back if that still fails (others share its cgroup).
    private static func makeV2(parent: String, name: String) -> Result<PidsCgroups, Reason> {
        let controllers = words(KernelFile.read(parent + "/cgroup.controllers"))
        guard controllers.contains("pids") else {
            return .failure(Reason(text: "cgroup v2: the host's cgroup \(parent) offers no pids controller"))
        }
        let folder = parent + "/" + name
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else {
            return .failure(Reason(text: "cgroup v2: cannot make a folder in \(parent): \(describe(errno))"))
        }
        var hostInside = false
        if !words(KernelFile.read(parent + "/cgroup.subtree_control")).contains("pids") {
            let leaf = folder + "/host"
            mkdir(leaf, 0o755)
            let moved = KernelFile.write("0", to: leaf + "/cgroup.procs")
            let enabled = moved == 0 ? KernelFile.write("+pids", to: parent + "/cgroup.subtree_control") : moved
            guard enabled == 0 else {
                if moved == 0 { KernelFile.write("0", to: parent + "/cgroup.procs") }
                rmdir(leaf)
                rmdir(folder)
                return .failure(Reason(text: "cgroup v2: cannot enable pids beneath the host's cgroup \(parent): \(describe(enabled))"))
            }
            hostInside = true
        }
        let enabled = KernelFile.write("+pids", to: folder + "/cgroup.subtree_control")
        guard enabled == 0 else {
            if !hostInside { rmdir(folder) }
            return .failure(Reason(text: "cgroup v2: cannot enable pids in \(folder): \(describe(enabled))"))
        }
        return .success(PidsCgroups(folder: folder, version: 2, unavailableReason: nil, hostInside: hostInside))
    }

    private static func words(_ text: String?) -> [Substring] {
        (text ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" })
    }

    // MARK: Names, and stale folders

    /// `switchboard-NS-PID-START` for this process (``HostInstance``).
    private static func hostFolderName() -> String? {
        HostInstance.name().map { "switchboard-" + $0 }
    }

    private static func prefix(_ namespace: String) -> String { "switchboard-\(namespace)-" }

    /// Removes the folders of hosts in this pid namespace that are gone, on a thread of its own: their runs'
    /// leftover processes are killed and waited for.
    private static func startRemovingStale(in parent: String, own: String) {
        guard let namespace = HostInstance.pidNamespace() else { return }
        let stale = FileText.subfolders(of: parent).filter { path in
            let name = path.split(separator: "/").last.map(String.init) ?? ""
            return name != own && HostInstance.isLeftByGoneHost(name, prefix: prefix(namespace), suffixed: false)
        }
        guard !stale.isEmpty else { return }
        try? OSThread.detach(name: "sb-cgroup-clean") {
            for folder in stale {
                for leaf in FileText.subfolders(of: folder) { _ = PidsCgroupLeaf.empty(leaf, killing: true) }
                rmdir(folder)
            }
        }
    }
}

/// The mount and membership of the host's cgroup, from `/proc/self/cgroup` and `/proc/self/mountinfo`.
enum CgroupMount {
    /// The folder of the host's own cgroup: in the cgroup2 mount (`version` 2, the `0::PATH` line), or in the cgroup
    /// v1 mount with the `pids` controller (its `N:…pids…:PATH` line). Nil when there is none.
    static func hostCgroup(version: Int, memberships: String, mounts: String) -> String? {
        let member: Substring? = memberships.split(separator: "\n").lazy.compactMap { line -> Substring? in
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            let matches = version == 2 ? parts[0] == "0" && parts[1].isEmpty : parts[1].split(separator: ",").contains("pids")
            return matches ? parts[2] : nil
        }.first
        guard let path = member else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash >= 5, fields.count > dash + 3 else { continue }
            let type = fields[dash + 1], options = fields[dash + 3].split(separator: ",")
            guard version == 2 ? type == "cgroup2" : type == "cgroup" && options.contains("pids") else { continue }
            let root = fields[3], point = fields[4]
            guard !point.contains("\\"), !path.contains("\\") else { continue }  // an escaped space or the like: not ours to guess
            let relative: Substring
            if root == "/" {
                relative = path
            } else if path == root || path.hasPrefix(root + "/") {
                relative = path.dropFirst(root.count)
            } else {
                continue
            }
            let inside = relative.split(separator: "/").joined(separator: "/")
            return inside.isEmpty ? String(point) : String(point) + "/" + inside
        }
        return nil
    }
}
