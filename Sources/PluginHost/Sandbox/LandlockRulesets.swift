#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Synchronization

/// Each confined plugin's last Landlock ruleset, kept open so that its next start reuses it instead of building it
/// again (one ruleset restricts any number of processes: each child only calls `landlock_restrict_self` with it).
///
/// A rule holds the inode its path named when the rule was added, not the path: a path replaced since (a folder
/// renamed over, removed and made again, a mount on it) would leave the rule on the old file. So a kept ruleset is
/// reused only when its rules are the same and each path still names the same device and inode (a `stat` each,
/// cheaper than the open, fstat, add_rule and close of building: for 34 paths in C here, 19 against 52 µs with warm
/// caches, 174–202 against 273–300 µs cold), and each path that could not be reached then still cannot; else it is
/// built again. While the ruleset is kept it
/// holds a reference to each of those inodes, so a removed file's inode number is not given to a new file.
final class LandlockRulesets: Sendable {
    /// What a ruleset is made of: the rights it handles, and what it allows.
    struct Rules: Equatable, Sendable {
        var handledFileSystem: UInt64
        var handledNetwork: UInt64
        var scoped: UInt64
        var paths: [PathRule]
        /// TCP ports it may connect to.
        var ports: [UInt64]
    }

    /// `access` beneath `path`.
    struct PathRule: Equatable, Sendable {
        var path: String
        var access: UInt64
    }

    /// A ruleset for one start: its descriptor, the caller's to close, and the paths that could not be reached
    /// (so have no rule).
    struct Opened {
        let fd: Int32
        let unreachable: [String]
    }

    private struct Kept: Sendable {
        let rules: Rules
        let fd: Int32
        /// The rules' paths, each ending in NUL, for ``sb_files_unchanged``.
        let paths: [CChar]
        let identities: [sb_file_identity]
        let unreachable: [String]

        /// Whether every path still names what its rule holds.
        var isCurrent: Bool {
            paths.withUnsafeBufferPointer { names in
                identities.withUnsafeBufferPointer { files in
                    sb_files_unchanged(names.baseAddress, names.count, files.baseAddress, Int32(files.count)) == 1
                }
            }
        }
    }

    private let kept = Mutex<[String: Kept]>([:])

    init() {}

    /// The ruleset of `rules` for a start of `plugin`: a copy of the kept one while it is current, else a new one
    /// (kept in its place). Throws `sandboxFailed` when it cannot be built.
    func open(for plugin: String, rules: Rules) throws(SandboxFailure) -> Opened {
        let reusable = kept.withLock { rulesets -> (Kept, Int32)? in
            // The copy is made under the lock: a start that replaces the entry closes its descriptor.
            guard let entry = rulesets[plugin], entry.rules == rules else { return nil }
            let copy = fcntl(entry.fd, F_DUPFD_CLOEXEC, 3)
            return copy >= 0 ? (entry, copy) : nil
        }
        if let (entry, copy) = reusable {
            if entry.isCurrent { return Opened(fd: copy, unreachable: entry.unreachable) }
            close(copy)
        }
        let built = try Self.build(rules)
        let copy = fcntl(built.fd, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { return Opened(fd: built.fd, unreachable: built.unreachable) }
        let replaced = kept.withLock { rulesets in
            defer { rulesets[plugin] = built }
            return rulesets[plugin]
        }
        if let replaced { close(replaced.fd) }
        return Opened(fd: copy, unreachable: built.unreachable)
    }

    private static func build(_ rules: Rules) throws(SandboxFailure) -> Kept {
        let ruleset = sb_landlock_create_ruleset(rules.handledFileSystem, rules.handledNetwork, rules.scoped)
        guard ruleset >= 0 else {
            throw SandboxFailure(reason: "sandboxFailed", description: "landlock_create_ruleset: \(String(cString: strerror(errno)))")
        }
        var paths: [CChar] = []
        var identities: [sb_file_identity] = []
        var unreachable: [String] = []
        for rule in rules.paths {
            var identity = sb_file_identity()
            if sb_landlock_allow_path(ruleset, rule.path, rule.access, &identity) != 0 {
                let reason = errno
                guard reason == ENOENT || reason == EACCES else {
                    close(ruleset)
                    throw SandboxFailure(reason: "sandboxFailed", description: "landlock_add_rule for \(rule.path): \(String(cString: strerror(reason)))")
                }
                identity = sb_file_identity()
                unreachable.append(rule.path)
            }
            identities.append(identity)
            paths += rule.path.utf8CString
        }
        for port in rules.ports where sb_landlock_allow_port(ruleset, port, LandlockAccess.connectTCP) != 0 {
            let reason = errno
            close(ruleset)
            throw SandboxFailure(reason: "sandboxFailed", description: "landlock_add_rule for TCP port \(port): \(String(cString: strerror(reason)))")
        }
        return Kept(rules: rules, fd: ruleset, paths: paths, identities: identities, unreachable: unreachable)
    }
}
