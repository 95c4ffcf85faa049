#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging

/// Calls back when a given process ends, by waiting on a pidfd in a thread of its own.
enum ProcessWatcher {
    static func watch(pid: Int32, logger: Logger, onExit: @escaping @Sendable () -> Void) {
        let fd = sb_pidfd_open(pid)
        guard fd >= 0 else {
            // ESRCH may mean the pid lives in another namespace, so do not exit on it.
            logger.warning("cannot watch client process \(pid) (errno \(errno)); relying on end of input")
            return
        }
        OSThread.detach(name: "sb-client-watch") {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while poll(&poller, 1, -1) < 0, errno == EINTR {}
            close(fd)
            logger.info("client process \(pid) exited")
            onExit()
        }
    }
}
