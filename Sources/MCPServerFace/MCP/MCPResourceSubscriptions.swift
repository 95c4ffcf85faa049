import Synchronization

/// A connection's MCP resource subscriptions: the host's subscription id for each URI, since MCP
/// unsubscribes by URI.
final class MCPResourceSubscriptions: Sendable {
    /// A URI maps to nil while its subscribe is under way.
    private let ids = Mutex<[String: String?]>([:])

    /// True when `uri` was not subscribed: the caller subscribes it.
    func claim(_ uri: String) -> Bool {
        ids.withLock { ids in
            guard ids[uri] == nil else { return false }
            ids[uri] = .some(nil)
            return true
        }
    }

    /// The subscription made for `uri`; nil when it failed (the URI is free again).
    func record(_ uri: String, id: String?) {
        ids.withLock { ids in
            if let id { ids[uri] = .some(id) } else { ids[uri] = nil }
        }
    }

    /// Forgets `uri`, handing back its subscription id.
    func release(_ uri: String) -> String? {
        ids.withLock { ids in ids.removeValue(forKey: uri) ?? nil }
    }
}
