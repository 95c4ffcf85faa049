#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging
import SystemCalls

/// Calls back once when a given process ends: by waiting on a pidfd in a thread of its own, or, on
/// kernels without pidfd (before Linux 5.3), by checking on it once a second. Throws when that
/// thread cannot be started.
enum ProcessWatcher {
    static func watch(pid: Int32, logger: Logger, onExit: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        let fd = sb_pidfd_open(pid)
        if fd < 0 {
            let reason = errno
            guard reason == ENOSYS || reason == EPERM else {
                // ESRCH may mean the pid lives in another pid namespace (a container): do not exit on it.
                logger.warning("cannot watch process \(pid) (errno \(reason)); relying on end of input")
                return
            }
            try OSThread.detach(name: "sb-process-poll") {
                while kill(pid, 0) == 0 || errno == EPERM { sleep(1) }
                onExit()
            }
            return
        }
        do {
            try OSThread.detach(name: "sb-process-watch") {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = SystemCall.retrying { poll(&poller, 1, -1) }
                close(fd)
                onExit()
            }
        } catch {
            close(fd)
            throw error
        }
    }
}
