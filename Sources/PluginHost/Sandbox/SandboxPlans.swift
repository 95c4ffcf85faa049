#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore
import Synchronization

/// The plan (``SandboxPlan``) of each plugin's last start, reused by its next start while nothing it was made
/// from changed: the manifest (its policy included), the program and its file (a new `#!` line), the PATH, and
/// every declared path that did not exist then still does not. A restart then skips resolving and checking
/// every default path again.
final class SandboxPlans: Sendable {
    private struct Key: Equatable {
        var manifest: PluginManifest
        var program: String?
        var searchPath: String?
        /// The program file's device, inode and modification time.
        var stamp: [Int]
    }

    private let plans = Mutex<[String: (key: Key, plan: SandboxPlan)]>([:])

    init() {}

    /// The plan for a start of `manifest` under `policy`: the last one if still valid, else a new one (kept).
    func plan(for manifest: PluginManifest, policy: SandboxPolicy, program: String?, searchPath: String?) -> SandboxPlan {
        let key = Key(manifest: manifest, program: program, searchPath: searchPath, stamp: program.map(Self.stamp) ?? [])
        if let kept = plans.withLock({ $0[manifest.name] }), kept.key == key, !kept.plan.absent.contains(where: FileText.exists) {
            return kept.plan
        }
        let plan = SandboxPlan.make(manifest: manifest, policy: policy, program: program, searchPath: searchPath)
        plans.withLock { $0[manifest.name] = (key, plan) }
        return plan
    }

    private static func stamp(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int(info.st_dev), Int(info.st_ino), info.st_mtim.tv_sec, info.st_mtim.tv_nsec, Int(info.st_size)]
    }
}
