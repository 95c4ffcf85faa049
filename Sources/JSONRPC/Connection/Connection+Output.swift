import Jansson
import Synchronization

extension Connection {
    /// The message framed in the stream's framing.
    func framed(_ message: JanssonValue) -> [UInt8] {
        var output: [UInt8] = []
        writers.withWriter { frame(message, writer: $0, into: &output) }
        return output
    }

    /// Sends an answer (or a request) from a task; the task waits, suspended, while the output is full.
    func send(_ message: JanssonValue) async {
        await sink.enqueue(framed(message))
    }

    /// Sends an answer from a plain thread (the input thread, the drain), which blocks while the output
    /// is full.
    func sendBlocking(_ message: JanssonValue) {
        sink.writeFromInput(framed(message))
    }

    /// Sends a notification the host pushes on its own, unless the output is full: then it is dropped
    /// and counted, and so is every later push until the sink has room again (half its bound free) and
    /// the count has gone out (``reportDroppedNotifications()``).
    func push(_ message: JanssonValue, method: String) {
        let bytes = framed(message)
        dropped.withLock { dropped in
            if !dropped.isEmpty || !sink.offer(bytes) { dropped.record(method) }
        }
    }

    /// Tells the peer how many pushes it missed; the sink calls it when it has room again.
    func reportDroppedNotifications() {
        dropped.withLock { dropped in
            guard !dropped.isEmpty, sink.offer(framed(dropped.notice())) else { return }
            dropped = DroppedNotifications()
        }
    }
}

/// Notifications the host pushed while the output was full, not yet reported to the peer.
struct DroppedNotifications: Sendable {
    /// The notice's method, in LSP's `$/` namespace of protocol-level notifications.
    static let method = "$/notificationsDropped"

    private(set) var count = 0
    private(set) var byMethod = JSONObject()

    var isEmpty: Bool { count == 0 }

    mutating func record(_ method: String) {
        count += 1
        byMethod[method] = .integer((byMethod[method]?.int64Value ?? 0) + 1)
    }

    /// `$/notificationsDropped {"count": N, "methods": {"$/progress": N}}`.
    func notice() -> JanssonValue {
        let params: JSONValue = ["count": .integer(Int64(count)), "methods": .object(byMethod)]
        return OutgoingMessage.notification(method: Self.method, params: params.makeJansson())
    }
}
