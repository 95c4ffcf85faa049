import Jansson
import JSONRPC
import Synchronization
import SwitchboardCore

/// Every subscription of the process, woken by ``ChangeSignal``s: `<namespace>.subscribe` and
/// `<namespace>.unsubscribe` of every domain go through it.
///
/// A subscription belongs to the connection that made it: only that connection can end it, and it
/// ends with the connection. Each has a bounded queue (``maxQueuedEvents``) for events the client has
/// not read yet; see ``Subscription``.
public final class SubscriptionHub: Sendable {
    /// The notification that ends a subscription the host had to give up.
    public static let droppedMethod = "host.subscriptionDropped"
    /// Events a subscription keeps for a client that is not reading before it is dropped.
    public static let defaultMaxQueuedEvents = 1024
    /// Subscriptions one connection may hold at once.
    public static let maxPerConnection = 256

    public let maxQueuedEvents: Int
    private let table = Mutex(Table())

    private struct Table: Sendable {
        var nextID: UInt64 = 0
        var subscriptions: [String: Subscription] = [:]
        /// Connections whose end and output room are being watched.
        var watched: Set<ObjectIdentifier> = []
    }

    public init(signal: ChangeSignal, maxQueuedEvents: Int = defaultMaxQueuedEvents) {
        self.maxQueuedEvents = max(1, maxQueuedEvents)
        listen(to: signal)
    }

    /// Wakes the subscriptions on `signal` too (the plugins' resource updates, say).
    public func listen(to signal: ChangeSignal) {
        signal.listen { [weak self] in self?.wakeAll() }
    }

    /// Starts a subscription on the request's connection: answers its id and the feed's position now;
    /// events after that position are delivered once the answer is out.
    public func subscribe(namespace: String, feed: any SubscriptionFeed, context: RequestContext) async throws -> SubscribeResult {
        let connection = context.connection
        let position: String
        do {
            position = try await feed.start()
        } catch {
            feed.end()
            throw error
        }
        let made: Result<Subscription, ResponseError> = table.withLock { table in
            let held = table.subscriptions.values.lazy.filter { $0.connection === connection }.count
            guard held < Self.maxPerConnection else {
                return .failure(ResponseError(code: .invalidRequest, message: "This connection holds \(held) subscriptions, the most allowed: unsubscribe first",
                                              data: ["limit": .integer(Int64(Self.maxPerConnection))]))
            }
            table.nextID += 1
            let subscription = Subscription(
                id: "\(namespace)-sub-\(table.nextID)", namespace: namespace, connection: connection, feed: feed,
                position: position, maxQueued: maxQueuedEvents, onEnd: { [weak self] in self?.remove($0) })
            table.subscriptions[subscription.id] = subscription
            return .success(subscription)
        }
        let subscription: Subscription
        switch made {
        case .success(let started): subscription = started
        case .failure(let error):
            feed.end()
            throw error
        }
        watch(connection)
        context.afterAnswer { subscription.begin() }
        return SubscribeResult(subscriptionId: subscription.id, state: position)
    }

    /// Ends a subscription of this connection in `namespace`; unknown ids are `-32602` naming `subscriptionId`.
    public func unsubscribe(namespace: String, id: String, context: RequestContext) throws -> UnsubscribeResult {
        let subscription = table.withLock { table in
            table.subscriptions[id].flatMap { $0.connection === context.connection && $0.namespace == namespace ? $0 : nil }
        }
        guard let subscription else {
            throw JSONFieldError(field: "subscriptionId", expected: "a \(namespace) subscription of this connection",
                                 got: JSONFieldError.quote(id))
        }
        subscription.cancel()
        return UnsubscribeResult(subscriptionId: id, unsubscribed: true)
    }

    /// How many subscriptions are live (all connections).
    public var count: Int { table.withLock { $0.subscriptions.count } }

    private func remove(_ subscription: Subscription) {
        _ = table.withLock { $0.subscriptions.removeValue(forKey: subscription.id) }
    }

    private func wakeAll() {
        for subscription in table.withLock({ Array($0.subscriptions.values) }) { subscription.wake() }
    }

    /// Wakes a connection's subscriptions when its output has room again, and ends them with it.
    private func watch(_ connection: Connection) {
        let first = table.withLock { $0.watched.insert(ObjectIdentifier(connection)).inserted }
        guard first else { return }
        let key = ObjectIdentifier(connection)
        let room = connection.onOutputRoom { [weak self] in
            for subscription in self?.subscriptions(of: key) ?? [] { subscription.wake() }
        }
        connection.whenClosed { [weak self, weak connection] in
            connection?.stopListening(room)
            guard let self else { return }
            for subscription in subscriptions(of: key) { subscription.cancel() }
            _ = table.withLock { $0.watched.remove(key) }
        }
    }

    private func subscriptions(of key: ObjectIdentifier) -> [Subscription] {
        table.withLock { $0.subscriptions.values.filter { ObjectIdentifier($0.connection) == key } }
    }
}

/// The answer of every `<namespace>.subscribe`.
public struct SubscribeResult: Codable, Sendable, Equatable {
    public var subscriptionId: String
    /// The position the subscription starts from: events after it are delivered.
    public var state: String
}

/// The params of every `<namespace>.unsubscribe`.
public struct UnsubscribeParams: Decodable, Sendable, Equatable {
    public var subscriptionId: String
}

/// The answer of every `<namespace>.unsubscribe`.
public struct UnsubscribeResult: Codable, Sendable, Equatable {
    public var subscriptionId: String
    public var unsubscribed: Bool
}
