import CSystemShims
import JSONRPC
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

extension InProcessCall {
    /// SIGINT, SIGTERM and SIGHUP while `switchboard call` runs: the first cancels the call as
    /// `$/cancelRequest` would (it answers when it stops; an import says what it stored), so the command
    /// can stop its plugin and exit `128 + signal`; a second, or one before the call has started, exits
    /// at once. Made first thing: the signals are blocked in the threads started after it, and one
    /// thread of its own waits for them.
    public final class Interruption: Sendable {
        private let number = Atomic<Int32>(0)
        private let connection = Mutex<Connection?>(nil)

        public init() {
            sb_block_host_signals()
            do {
                try OSThread.detach(name: "sb-call-signals") { [self] in waitForSignals() }
            } catch {
                // No thread to wait on: the signals act as they would have, ending the process.
                var set = sigset_t()
                sigemptyset(&set)
                for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&set, signal) }
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
            }
        }

        /// The signal that cancelled the call, if one did.
        public var received: Int32? {
            let signal = number.load(ordering: .acquiring)
            return signal == 0 ? nil : signal
        }

        /// The connection the call runs on: the one a signal cancels it on.
        public func watch(_ connection: Connection) {
            self.connection.withLock { $0 = connection }
        }

        private func waitForSignals() {
            while true {
                let signal = sb_wait_host_signal()
                guard signal > 0 else { continue }
                let first = number.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing).exchanged
                guard first, let connection = connection.withLock({ $0 }) else {
                    SystemCall.writeAll(STDERR_FILENO, Array("switchboard: signal \(signal): exiting at once\n".utf8))
                    _exit(128 + signal)
                }
                SystemCall.writeAll(STDERR_FILENO, Array("switchboard: signal \(signal): cancelling the call (another exits at once)\n".utf8))
                connection.cancelRunning(InProcessCall.requestID)
            }
        }
    }
}
