#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Synchronization
import SystemCalls

/// One plugin run's pids cgroup, `NAME.RUN` in the host's folder (``PidsCgroups``): `pids.max` is the run's
/// `limits.processes`, and the file the child writes "0" to before exec to join it is open (``procsFD``).
/// Removed once empty (``release(killing:)``).
///
/// That file is `tasks` on cgroup v1 (`cgroup.procs` where `tasks` cannot be opened), `cgroup.procs` on v2. The
/// child is single-threaded between vfork and exec, so moving its one thread (`tasks`) moves the process; and a
/// thread moving itself spares the kernel the global `cgroup_threadgroup_rwsem` write lock that a `cgroup.procs`
/// write takes, which waits for an RCU grace period when the lock was idle (measured: 2 joins in 300 took 15 ms
/// through `cgroup.procs`, none through `tasks`; see docs/benchmarks.md).
struct PidsCgroupLeaf: Sendable {
    let path: String
    /// `tasks` (v1) or `cgroup.procs` (v2), open for writing; the spawn's child writes "0" to it. Closed after the
    /// spawn (``closeProcs()``).
    let procsFD: Int32
    let runs: PidsCgroupRuns

    /// Makes the leaf for one run of `plugin`, limited to `processes`; the reason when it cannot.
    static func make(in cgroups: PidsCgroups, plugin: String, processes: Int, runs: PidsCgroupRuns) -> Result<PidsCgroupLeaf, LeafFailure> {
        guard let folder = cgroups.folder else { return .failure(LeafFailure(reason: cgroups.unavailableReason ?? "no pids cgroup")) }
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
        runs.add(path)
        return .success(PidsCgroupLeaf(path: path, procsFD: fd, runs: runs))
    }

    /// Why a run has no cgroup of its own.
    struct LeafFailure: Error {
        var reason: String
    }

    func closeProcs() { close(procsFD) }

    /// Waits until no process is left in the cgroup (with `killing`, kills them first), then removes it. Blocks the
    /// calling thread: a run's reaper thread, or the host's exit.
    func release(killing: Bool) {
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

/// The run cgroups a host's plugins have now (``PidsCgroupLeaf``), so the host's exit removes those left.
final class PidsCgroupRuns: Sendable {
    private let paths = Mutex<Set<String>>([])

    init() {}

    func add(_ path: String) { paths.withLock { _ = $0.insert(path) } }
    func remove(_ path: String) { paths.withLock { _ = $0.remove(path) } }

    /// At the host's exit, after its plugins were stopped: kills what is left in each run's cgroup and removes it.
    func removeAll() {
        let left = paths.withLock { $0 }
        for path in left where PidsCgroupLeaf.empty(path, killing: true) { remove(path) }
    }
}
