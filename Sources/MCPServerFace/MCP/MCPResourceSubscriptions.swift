import Synchronization

/// A connection's MCP resource subscriptions: the host's subscription id for each URI, since MCP
/// unsubscribes by URI.
final class MCPResourceSubscriptions: Sendable {
    private enum Entry {
        /// Its subscribe is under way; `released` when an unsubscribe came meanwhile.
        case pending(released: Bool)
        case subscribed(String)
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// True when `uri` was not subscribed: the caller subscribes it. A subscribe under way that an
    /// unsubscribe released is kept instead (this subscribe came after that unsubscribe).
    func claim(_ uri: String) -> Bool {
        entries.withLock { entries in
            switch entries[uri] {
            case nil:
                entries[uri] = .pending(released: false)
                return true
            case .pending(released: true):
                entries[uri] = .pending(released: false)
                return false
            case .pending(released: false), .subscribed:
                return false
            }
        }
    }

    /// The subscription made for `uri`, `nil` when it failed (the URI is free again). Returns the id
    /// to unsubscribe at once when an unsubscribe released the URI while it was being made (a client
    /// that sends both without waiting must not be left subscribed).
    func record(_ uri: String, id: String?) -> String? {
        entries.withLock { entries in
            guard let id else {
                entries[uri] = nil
                return nil
            }
            if case .pending(released: true) = entries[uri] {
                entries[uri] = nil
                return id
            }
            entries[uri] = .subscribed(id)
            return nil
        }
    }

    /// Forgets `uri`, handing back its subscription id; one still being made is unsubscribed once made (``record(_:id:)``).
    func release(_ uri: String) -> String? {
        entries.withLock { entries in
            switch entries[uri] {
            case .subscribed(let id):
                entries[uri] = nil
                return id
            case .pending:
                entries[uri] = .pending(released: true)
                return nil
            case nil:
                return nil
            }
        }
    }
}
