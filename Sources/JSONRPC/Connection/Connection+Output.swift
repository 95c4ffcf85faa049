import Jansson
import Logging
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
        if holdUntilFramed(message) { return }
        await sink.enqueue(framed(message))
    }

    /// Sends an answer from a plain thread (the input thread, the drain), which blocks while the output
    /// is full.
    func sendBlocking(_ message: JanssonValue) {
        if holdUntilFramed(message) { return }
        sink.writeFromInput(framed(message))
    }

    /// Sends a notification the host pushes on its own, unless the output is full: then it is dropped
    /// and counted, and so is every later push until the sink has room again (half its bound free) and
    /// the count has gone out (``reportDroppedNotifications()``). It never overtakes frames this thread
    /// gathered for the same output (``WriteCoalescing/joinGathered(_:to:)``): it goes out with them.
    func push(_ message: JanssonValue, method: String) {
        if holdUntilFramed(message, pushing: method) { return }
        let bytes = framed(message)
        let dropping = dropped.withLock { dropped in
            let first = dropped.isEmpty
            guard !first || !(WriteCoalescing.joinGathered(bytes, to: sink) || sink.offer(bytes)) else { return false }
            dropped.record(method)
            if first { logger.info("the client is not reading: dropping pushed notifications until it does") }
            return true
        }
        if dropping { logger.debug("dropped \(method): the output is full") }
    }

    /// Keeps `message` while the stream's framing is unknown (an NDJSON line would be garbage to an
    /// LSP-framed client); false once it is known: send it now. Held pushes (`method` given) count
    /// against the output bound; past it they are dropped and reported like any other.
    func holdUntilFramed(_ message: JanssonValue, pushing method: String? = nil) -> Bool {
        guard framing == nil else { return false }
        return held.withLock { held in
            guard framing == nil else { return false }
            let body = writers.withWriter { writer in writer.withBytes(of: message.view) { Array($0) } }
            if let method, held.byteCount > 0, held.byteCount + body.count > limits.maxOutputBytes {
                dropped.withLock { $0.record(method) }
                held.dropped = true
                return true
            }
            held.bodies.append(body)
            held.byteCount += body.count
            return true
        }
    }

    /// Tells the peer how many pushes it missed; the sink calls it when it has room again. A peer whose
    /// dialect has no such notice (an MCP client) is not sent one: the count is only logged.
    func reportDroppedNotifications() {
        dropped.withLock { dropped in
            guard !dropped.isEmpty else { return }
            guard let (method, params) = wordedOwn(DroppedNotifications.method, dropped.params) else {
                logger.info("the client reads again: \(dropped.count) pushed notifications were dropped (its protocol has no notice for it)")
                dropped = DroppedNotifications()
                return
            }
            guard sink.offer(framed(OutgoingMessage.notification(method: method, params: params?.makeJansson()))) else { return }
            dropped = DroppedNotifications()
        }
    }
}

/// Messages sent before the framing was known: their bodies, framed and sent in order once it is.
struct HeldMessages: Sendable {
    var bodies: [[UInt8]] = []
    var byteCount = 0
    /// Pushes were dropped meanwhile: the count follows the held messages.
    var dropped = false
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

    /// The params of `$/notificationsDropped {"count": N, "methods": {"$/progress": N}}`.
    var params: JSONValue { ["count": .integer(Int64(count)), "methods": .object(byMethod)] }
}
