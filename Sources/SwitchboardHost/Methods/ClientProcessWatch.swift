import Jansson
import JSONRPC
import Synchronization

/// The client process one connection watches (`initialize`'s `processId`): one per connection, so
/// repeated `initialize`s start no more watchers (each is a thread and a pidfd that last until that
/// process ends). The same `processId` again is accepted; another one is refused.
final class ClientProcessWatch: Sendable {
    private let watched = Mutex<Int32?>(nil)

    /// The connection's watch, made on first use.
    static func of(_ connection: Connection) -> ClientProcessWatch {
        connection.session.value("initialize.processId") { ClientProcessWatch() }
    }

    /// Watches `pid` with `start` unless this connection already watches it; `-32602` naming
    /// `processId` when it watches another, `-32603` when the watch cannot be started (no thread).
    func watch(_ pid: Int32, start: (Int32) throws -> Void) throws(ResponseError) {
        try watched.withLock { (watched: inout Int32?) throws(ResponseError) in
            if let current = watched {
                guard current == pid else {
                    throw ResponseError.invalidParams(JSONFieldError(
                        field: "processId", expected: "the process this connection already watches (\(current))", got: String(pid)))
                }
                return
            }
            do {
                try start(pid)
            } catch {
                throw ResponseError.internalError("cannot watch process \(pid): \(error)")
            }
            watched = pid
        }
    }
}
