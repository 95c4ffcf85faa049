#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Synchronization
import SystemCalls

/// A plugin's pids cgroup, `NAME.RUN` in the host's folder (``PidsCgroups``): `pids.max` is the run's
/// `limits.processes`, and the file the child writes "0" to before exec to join it is open (``procsFD``).
/// A plugin keeps its cgroup from one run to the next while a run leaves it empty (``PidsCgroupRuns``); one a run
/// left processes in is removed once empty (``release(killing:)``), and the next run gets a new one.
///
/// That file is `tasks` on cgroup v1 (`cgroup.procs` where `tasks` cannot be opened), `cgroup.procs` on v2. The
/// child is single-threaded between vfork and exec, so moving its one thread (`tasks`) moves the process; and a
/// thread moving itself spares the kernel the global `cgroup_threadgroup_rwsem` write lock that a `cgroup.procs`
/// write takes, which waits for an RCU grace period when the lock was idle (measured: 2 joins in 300 took 15 ms
/// through `cgroup.procs`, none through `tasks`; see docs/benchmarks.md).
struct PidsCgroupLeaf: Sendable {
    let path: String
    /// `tasks` (v1) or `cgroup.procs` (v2), open for writing, for one spawn: its child writes "0" to it. Closed after
    /// the spawn (``closeProcs()``).
    let procsFD: Int32
    let plugin: String
    let runs: PidsCgroupRuns

    /// The cgroup for one run of `plugin`, limited to `processes`: the plugin's kept one when free, else a new one;
    /// the reason when there is none.
    static func make(in cgroups: PidsCgroups, plugin: String, processes: Int, runs: PidsCgroupRuns) -> Result<PidsCgroupLeaf, LeafFailure> {
        guard let folder = cgroups.folder else { return .failure(LeafFailure(reason: cgroups.unavailableReason ?? "no pids cgroup")) }
        if let kept = runs.reuse(for: plugin, processes: processes) { return .success(kept) }
        let safe = String(plugin.unicodeScalars.prefix(64).map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) || $0 == "-" || $0 == "_" ? Character($0) : "_" })
        let path = folder + "/" + safe + "." + String(cgroups.nextRun())
        guard mkdir(path, 0o755) == 0 else {
            return .failure(LeafFailure(reason: "cannot make the cgroup \(path): \(String(cString: strerror(errno)))"))
        }
        let written = KernelFile.write(String(processes), to: path + "/pids.max")
        var join = cgroups.version == 1 ? "tasks" : "cgroup.procs"
        var fd = written == 0 ? open(path + "/" + join, O_WRONLY | O_CLOEXEC) : -1
        if fd < 0, written == 0, join == "tasks" {  // a delegation that opened cgroup.procs only
            join = "cgroup.procs"
            fd = open(path + "/" + join, O_WRONLY | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let reason = written != 0 ? "pids.max: \(String(cString: strerror(written)))" : "\(join): \(String(cString: strerror(errno)))"
            rmdir(path)
            return .failure(LeafFailure(reason: "cannot set up the cgroup \(path): \(reason)"))
        }
        return .success(runs.add(path, plugin: plugin, procsFD: fd, processes: processes))
    }

    /// Why a run has no cgroup of its own.
    struct LeafFailure: Error {
        var reason: String
    }

    func closeProcs() { close(procsFD) }

    /// The end of a run, once its process was reaped: whether the cgroup is now free for the plugin's next run (it
    /// is the plugin's kept one, and empty). When not, the caller releases it (``release(killing:)``).
    func endRun() -> Bool { runs.finish(self) }

    /// Waits until no process is left in the cgroup (with `killing`, kills them first), then removes it. Blocks the
    /// calling thread: a run's reaper thread, or the host's exit.
    func release(killing: Bool) {
        runs.stopKeeping(path)
        if Self.empty(path, killing: killing) { runs.remove(path) }
    }

    /// Waits (pidfds) until the cgroup at `path` holds no process, killing them first with `killing`, and removes it;
    /// whether it is gone. Processes it starts meanwhile are found by the next round; a bounded number of rounds.
    static func empty(_ path: String, killing: Bool) -> Bool {
        for _ in 0..<1_000 {
            guard let listed = KernelFile.read(path + "/cgroup.procs") else { return rmdir(path) == 0 || errno == ENOENT }
            let pids = listed.split(separator: "\n").compactMap { Int32($0) }
            if pids.isEmpty {
                if rmdir(path) == 0 || errno == ENOENT { return true }
                guard errno == EBUSY else { return false }
                continue  // one started as we read: the next round finds it
            }
            var watches: [Int32] = []
            var noPidfds = false
            for pid in pids {
                let watch = sb_pidfd_open(pid)
                if watch < 0, errno == ENOSYS { noPidfds = true }
                watches.append(watch)
            }
            if killing { pids.forEach { _ = kill($0, SIGKILL) } }
            // No pidfds on this kernel: nothing to wait on without a timer; the host's exit or a later host removes it.
            if noPidfds {
                watches.filter { $0 >= 0 }.forEach { close($0) }
                return false
            }
            for watch in watches where watch >= 0 {
                var exited = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
                _ = SystemCall.retrying { poll(&exited, 1, -1) }
                close(watch)
            }
        }
        return false
    }
}

/// The pids cgroups a host's plugins have now (``PidsCgroupLeaf``), so the host's exit removes those left; and each
/// plugin's kept one, which its next run reuses while the last run left it empty: a run then costs no mkdir, no
/// `pids.max` write and no rmdir (~0.15 ms of kernel time here). The kept cgroup's `tasks` (or `cgroup.procs`) stays
/// open; each run gets a copy.
final class PidsCgroupRuns: Sendable {
    private struct Kept {
        let path: String
        let procsFD: Int32
        /// `pids.current`, open for reading.
        let currentFD: Int32
        var processes: Int
        /// Whether a run has it now.
        var inUse: Bool

        func close() {
            Glibc.close(procsFD)
            Glibc.close(currentFD)
        }

        /// Whether `pids.current` reads 0 (read again from its start: no path to look up).
        var isEmpty: Bool {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
                let count = SystemCall.retrying { pread(currentFD, buffer.baseAddress, buffer.count, 0) }
                return count >= 1 && buffer[0] == UInt8(ascii: "0") && (count == 1 || buffer[1] == UInt8(ascii: "\n"))
            }
        }
    }

    private let paths = Mutex<Set<String>>([])
    private let kept = Mutex<[String: Kept]>([:])

    init() {}

    /// Records the new cgroup `path` of a run of `plugin`, which becomes the plugin's kept one unless it has one.
    func add(_ path: String, plugin: String, procsFD: Int32, processes: Int) -> PidsCgroupLeaf {
        paths.withLock { _ = $0.insert(path) }
        let copy = fcntl(procsFD, F_DUPFD_CLOEXEC, 3)
        let current = open(path + "/pids.current", O_RDONLY | O_CLOEXEC)
        let keeping = copy >= 0 && current >= 0 && kept.withLock { cgroups in
            guard cgroups[plugin] == nil else { return false }
            cgroups[plugin] = Kept(path: path, procsFD: procsFD, currentFD: current, processes: processes, inUse: true)
            return true
        }
        if !keeping {
            if copy >= 0 { close(copy) }
            if current >= 0 { close(current) }
        }
        return PidsCgroupLeaf(path: path, procsFD: keeping ? copy : procsFD, plugin: plugin, runs: self)
    }

    /// `plugin`'s kept cgroup for a run, limited to `processes`, if no run has it; nil: make a new one.
    func reuse(for plugin: String, processes: Int) -> PidsCgroupLeaf? {
        kept.withLock { cgroups -> PidsCgroupLeaf? in
            guard var entry = cgroups[plugin], !entry.inUse else { return nil }
            if entry.processes != processes {
                guard KernelFile.write(String(processes), to: entry.path + "/pids.max") == 0 else {
                    // Not to be tried again: it is empty, so it goes, and the next run gets a new one.
                    entry.close()
                    cgroups[plugin] = nil
                    rmdir(entry.path)
                    return nil
                }
                entry.processes = processes
            }
            let copy = fcntl(entry.procsFD, F_DUPFD_CLOEXEC, 3)
            guard copy >= 0 else { return nil }
            entry.inUse = true
            cgroups[plugin] = entry
            return PidsCgroupLeaf(path: entry.path, procsFD: copy, plugin: plugin, runs: self)
        }
    }

    /// ``PidsCgroupLeaf/endRun()``: frees the plugin's kept cgroup when the run left nothing in it (`pids.current`
    /// 0: not even a zombie that would count against the next run's limit), else stops keeping it.
    func finish(_ leaf: PidsCgroupLeaf) -> Bool {
        kept.withLock { cgroups in
            guard let entry = cgroups[leaf.plugin], entry.path == leaf.path else { return false }
            let empty = entry.isEmpty
            if empty {
                cgroups[leaf.plugin]?.inUse = false
            } else {
                entry.close()
                cgroups[leaf.plugin] = nil
            }
            return empty
        }
    }

    /// The cgroup `path` is gone.
    func remove(_ path: String) {
        stopKeeping(path)
        paths.withLock { _ = $0.remove(path) }
    }

    /// No later run gets the cgroup `path`.
    func stopKeeping(_ path: String) {
        kept.withLock { cgroups in
            guard let (plugin, entry) = cgroups.first(where: { $0.value.path == path }) else { return }
            entry.close()
            cgroups[plugin] = nil
        }
    }

    /// At the host's exit, after its plugins were stopped: kills what is left in each cgroup and removes it.
    func removeAll() {
        kept.withLock { cgroups in
            cgroups.values.forEach { $0.close() }
            cgroups = [:]
        }
        let left = paths.withLock { $0 }
        for path in left where PidsCgroupLeaf.empty(path, killing: true) { remove(path) }
    }
}
