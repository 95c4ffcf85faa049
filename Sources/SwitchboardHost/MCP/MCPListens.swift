import Jansson
import Synchronization

/// A connection's `subscriptions/listen` streams (MCP 2026-07-28): which stream each host
/// subscription it made belongs to, so its updates carry that stream's id.
public final class MCPListens: Sendable {
    /// The `_meta` member naming the stream (the `subscriptions/listen` request's id).
    public static let streamKey = "io.modelcontextprotocol/subscriptionId"

    private let streams = Mutex<[String: JSONValue]>([:])

    public func record(_ subscriptionId: String, stream: JSONValue) {
        streams.withLock { $0[subscriptionId] = stream }
    }

    public func forget(_ subscriptionId: String) {
        _ = streams.withLock { $0.removeValue(forKey: subscriptionId) }
    }

    /// The stream a host subscription belongs to; nil for one `resources/subscribe` made.
    func stream(of subscriptionId: String) -> JSONValue? {
        streams.withLock { $0[subscriptionId] }
    }
}
