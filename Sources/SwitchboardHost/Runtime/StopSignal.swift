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

/// Why the host stops, announced by whichever thread sees it: the main thread waits for the first
/// reason, and while it drains it also watches for a later, more urgent one (a signal after end of input).
final class StopSignal: @unchecked Sendable {
    private let lock = ConditionLock()
    private var first: StopReason?
    private var latest: StopReason?

    func stop(_ reason: StopReason) {
        lock.withLock {
            if first == nil { first = reason }
            latest = reason
            lock.broadcast()
        }
    }

    var isStopping: Bool { lock.withLock { first != nil } }

    /// The most recent reason given.
    var latestReason: StopReason? { lock.withLock { latest } }

    func wait() -> StopReason {
        lock.withLock {
            while first == nil { lock.wait() }
            return first!
        }
    }
}

extension StopReason {
    /// Reasons that give in-flight work a deadline rather than waiting for it.
    var isUrgent: Bool {
        switch self {
        case .signal, .clientDied, .outputClosed, .inputFailed: true
        case .endOfInput, .exitRequested: false
        }
    }
}
