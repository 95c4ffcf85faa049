import JSONRPC

/// Why the host stops.
enum StopReason: Equatable {
    /// stdin reached end of file: finish in-flight work and exit 0.
    case endOfInput
    /// `exit` was received (code 0 after `shutdown`, else 1).
    case exitRequested(Int32)
    /// SIGTERM, SIGINT or SIGHUP; the client's death arrives as SIGTERM too.
    case signal(Int32)
    /// The process named in `initialize.processId` ended.
    case clientDied
    /// Nobody reads stdout any more (EPIPE).
    case outputClosed
    /// stdin could not be read.
    case inputFailed(Int32)
}

/// The first reason to stop, announced by whichever thread sees it; the main thread waits for it.
final class StopSignal: @unchecked Sendable {
    private let lock = ConditionLock()
    private var reason: StopReason?

    /// Records `reason` unless another came first.
    func stop(_ reason: StopReason) {
        lock.withLock {
            if self.reason == nil { self.reason = reason }
            lock.broadcast()
        }
    }

    var isStopping: Bool { lock.withLock { reason != nil } }

    func wait() -> StopReason {
        lock.withLock {
            while reason == nil { lock.wait() }
            return reason!
        }
    }
}
