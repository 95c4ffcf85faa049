import Jansson
import Synchronization

/// How the host words what it pushes on its own for a peer that speaks another protocol on the same
/// stream: an MCP client gets `notifications/progress` where a JSON-RPC client gets `$/progress`.
///
/// A connection has none until a handshake picks one (``Connection/speak(_:)``); every notification
/// it sends afterwards (``Connection/notify(method:params:)``, subscription events, ``Connection/deliver(method:params:)``)
/// passes through ``rewrite``.
public struct NotificationDialect: Sendable {
    /// The notification as this peer expects it; nil drops it (the peer has no use for it).
    public let rewrite: @Sendable (_ method: String, _ params: JSONValue?) -> (method: String, params: JSONValue?)?
    /// Whether a notification the host sends on its own (``Connection/notify(method:params:)``, not an
    /// event of a subscription the peer made) goes out when ``rewrite`` leaves its method as it is:
    /// false for a peer that knows only its own protocol's notifications.
    public let passesOwnNotifications: Bool

    public init(passesOwnNotifications: Bool = true,
                rewrite: @escaping @Sendable (_ method: String, _ params: JSONValue?) -> (method: String, params: JSONValue?)?) {
        self.passesOwnNotifications = passesOwnNotifications
        self.rewrite = rewrite
    }
}

extension Connection {
    /// From now on, notifications to this peer pass through `dialect`.
    public func speak(_ dialect: NotificationDialect) {
        self.dialect.withLock { $0 = dialect }
    }

    /// `method` and `params` as the peer's dialect words them; unchanged without one.
    func worded(_ method: String, _ params: JSONValue?) -> (method: String, params: JSONValue?)? {
        guard let dialect = dialect.withLock({ $0 }) else { return (method, params) }
        return dialect.rewrite(method, params)
    }

    /// ``worded(_:_:)`` for a notification the host sends on its own: nil also when the dialect rewords
    /// only what it knows and leaves `method` as it is.
    func wordedOwn(_ method: String, _ params: JSONValue?) -> (method: String, params: JSONValue?)? {
        guard let dialect = dialect.withLock({ $0 }) else { return (method, params) }
        guard let worded = dialect.rewrite(method, params), dialect.passesOwnNotifications || worded.method != method else { return nil }
        return worded
    }

    /// True once a handshake picked a dialect.
    var hasDialect: Bool { dialect.withLock { $0 != nil } }
}
