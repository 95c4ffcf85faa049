import Jansson

/// What one kind of subscription follows (a chat room's messages, an account's mailbox): where it
/// starts, and the events after a position, read from the shared change log, so writes by other
/// processes on the same database are seen exactly like this process's own.
public protocol SubscriptionFeed: Sendable {
    /// The notification each event goes out as (`chat.message`, `mail.changed`).
    var method: String { get }
    /// True when each event supersedes the ones before it (a "state changed" hint): while the client
    /// is not reading, only the newest is kept, so such a subscription is never dropped for falling behind.
    var coalesces: Bool { get }
    /// The position now: the `state` the subscribe answer gives. Events after it are delivered.
    func start() async throws -> String
    /// At most `limit` events after `position`, oldest first.
    func events(after position: String, limit: Int) async throws -> SubscriptionStep
    /// Called once when the subscription ends (unsubscribed, dropped, its connection closed, or never
    /// started): to let go of what ``start()`` took, like a plugin's own subscription.
    func end()
}

extension SubscriptionFeed {
    public func end() {}
}

/// One notification a subscription sends.
public struct SubscriptionEvent: Sendable {
    /// The notification's params; the hub adds `subscriptionId`.
    public var params: JSONObject
    /// The position right after this event: what a client that saw it resyncs from.
    public var position: String

    public init(params: JSONObject, position: String) {
        self.params = params
        self.position = position
    }
}

/// What one read of a feed found.
public struct SubscriptionStep: Sendable {
    public var events: [SubscriptionEvent]
    /// The position after everything read, which may lie past the last event (records of other
    /// rooms, say, are read and skipped).
    public var position: String
    /// True when more events wait after `position`.
    public var hasMore: Bool

    public init(events: [SubscriptionEvent], position: String, hasMore: Bool) {
        self.events = events
        self.position = position
        self.hasMore = hasMore
    }
}
