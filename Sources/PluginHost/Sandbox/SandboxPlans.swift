#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore
import Synchronization

/// The plan (``SandboxPlan``) of each plugin's last start, reused by its next start while nothing it was made
/// from changed: what of the manifest it reads (the policy, the plugin's folder and working folder; the name is
/// the key), the program and its file (a new `#!` line), the PATH, and every declared path that did not exist
/// then still does not. A restart then skips resolving and checking every default path again.
final class SandboxPlans: Sendable {
    private struct Key: Equatable {
        var policy: SandboxPolicy
        var folder: String?
        var cwd: String
        var program: String?
        var searchPath: String?
        var stamp: Stamp
    }

    /// The program file's device, inode, modification time and size (all 0: none).
    private struct Stamp: Equatable {
        var device: UInt64 = 0, inode: UInt64 = 0, seconds = 0, nanoseconds = 0, size = 0
    }

    private let plans = Mutex<[String: (key: Key, plan: SandboxPlan)]>([:])

    init() {}

    /// The plan for a start of `manifest` under `policy`: the last one if still valid, else a new one (kept).
    func plan(for manifest: PluginManifest, policy: SandboxPolicy, program: String?, searchPath: String?) -> SandboxPlan {
        let key = Key(policy: policy, folder: manifest.folder, cwd: manifest.cwd, program: program, searchPath: searchPath,
                      stamp: program.map(Self.stamp) ?? Stamp())
        if let kept = plans.withLock({ $0[manifest.name] }), kept.key == key, !kept.plan.absent.contains(where: FileText.exists) {
            return kept.plan
        }
        let plan = SandboxPlan.make(manifest: manifest, policy: policy, program: program, searchPath: searchPath)
        plans.withLock { $0[manifest.name] = (key, plan) }
        return plan
    }

    private static func stamp(_ path: String) -> Stamp {
        var info = stat()
        guard stat(path, &info) == 0 else { return Stamp() }
        return Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), seconds: info.st_mtim.tv_sec,
                     nanoseconds: info.st_mtim.tv_nsec, size: Int(info.st_size))
    }
}
