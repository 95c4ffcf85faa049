import Synchronization

/// State a connection's methods keep between requests, such as the account `mail.login` signed in.
/// Each connection has its own; it is gone with the connection.
public final class ConnectionSession: Sendable {
    private let values = Mutex<[String: any Sendable]>([:])

    public init() {}

    public func value<T: Sendable>(_ key: String, as type: T.Type = T.self) -> T? {
        values.withLock { $0[key] as? T }
    }

    public func set(_ key: String, _ value: (any Sendable)?) {
        values.withLock { $0[key] = value }
    }

    /// The value under `key`, made by `make` and kept if there is none yet (in one step, so two
    /// requests racing for it get the same one).
    public func value<T: Sendable>(_ key: String, orInsert make: () -> T) -> T {
        values.withLock { values in
            if let existing = values[key] as? T { return existing }
            let made = make()
            values[key] = made
            return made
        }
    }
}
