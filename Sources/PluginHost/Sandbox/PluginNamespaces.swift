#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import Synchronization

/// The user (and network) namespace each plugin's first confined run made, kept open by the host so its
/// later runs enter them (setns) instead of making new ones: a network namespace costs the kernel
/// milliseconds to make and to tear down, most of what confinement added to a plugin's start. Not for a
/// plugin behind the proxy (`network.allow`): each of its runs gets new ones.
///
/// - Important: a kept namespace holds only that plugin's runs: its uid and gid maps, its loopback, nothing
///   else. A process a run left behind (one that escaped its process group) shares it with the next run of the
///   same plugin, as it would share the user's loopback unconfined; Landlock's scoping still keeps each run's
///   signals and abstract sockets to itself. A start that fails forgets them: the next one makes new ones.
final class PluginNamespaces: Sendable {
    /// One plugin's namespaces: the user namespace, and its network namespace if it has one.
    struct Held: Sendable {
        let user: Int32
        let network: Int32?

        func close() {
            Glibc.close(user)
            if let network { Glibc.close(network) }
        }
    }

    private let held = Mutex<[String: Held]>([:])

    init() {}

    /// Copies (dup) of `plugin`'s kept namespaces when they are of the kind asked for (with or without a
    /// network namespace), for one spawn: the caller closes them. Nil: none kept, make new ones.
    func entering(_ plugin: String, network: Bool) -> Held? {
        held.withLock { kept -> Held? in
            guard let entry = kept[plugin], (entry.network != nil) == network else { return nil }
            let user = fcntl(entry.user, F_DUPFD_CLOEXEC, 3)
            guard user >= 0 else { return nil }
            guard let networkFD = entry.network else { return Held(user: user, network: nil) }
            let copy = fcntl(networkFD, F_DUPFD_CLOEXEC, 3)
            guard copy >= 0 else {
                Glibc.close(user)
                return nil
            }
            return Held(user: user, network: copy)
        }
    }

    /// Keeps the namespaces a run sent on `channel` (``sb_confinement/send_namespaces``) for `plugin`'s later
    /// runs, in place of any kept before. Closes `channel`.
    func keep(_ plugin: String, from channel: Int32, network: Bool) {
        var fds: [Int32] = [-1, -1]
        let count = sb_receive_descriptors(channel, &fds, 2)
        Glibc.close(channel)
        guard count == (network ? 2 : 1) else {
            for fd in fds.prefix(max(0, Int(count))) { Glibc.close(fd) }
            return
        }
        let entry = Held(user: fds[0], network: network ? fds[1] : nil)
        held.withLock { kept in
            kept[plugin]?.close()
            kept[plugin] = entry
        }
    }

    /// Closes `plugin`'s kept namespaces (after a failed start).
    func forget(_ plugin: String) {
        held.withLock { kept in
            kept.removeValue(forKey: plugin)?.close()
        }
    }
}
