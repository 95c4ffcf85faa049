import DomainMethods
import Jansson
import JSONRPC
import SwitchboardHost

/// `resources.subscribe {uri}` → `{subscriptionId, state}`; then `resources.updated {subscriptionId,
/// uri}` whenever that resource changes: a core domain's through its change log, a plugin's when the
/// plugin reports it (the host asks the plugin with MCP's `resources/subscribe`). Read it again with
/// `resources.read`.
public enum ResourcesSubscribe: RPCMethod {
    public static let name = "resources.subscribe"
    public static let summary = "Pushes resources.updated whenever a resource changes."

    public struct Params: Decodable, Sendable {
        public var uri: String
    }

    public typealias Result = SubscribeResult
}

/// `resources.unsubscribe {subscriptionId}`.
public enum ResourcesUnsubscribe: RPCMethod {
    public static let name = "resources.unsubscribe"
    public static let summary = "Ends a resources subscription of this connection."
    public typealias Params = UnsubscribeParams
    public typealias Result = UnsubscribeResult
}

/// A plugin resource's `resources.updated` hints, from ``ResourceUpdates``; `onEnd` lets go of the
/// plugin's subscription.
struct PluginResourceFeed: SubscriptionFeed {
    let uri: String
    let updates: ResourceUpdates
    let onEnd: @Sendable () -> Void

    func end() { onEnd() }

    var method: String { HostPush.resourcesUpdated }
    var coalesces: Bool { true }

    func start() async throws -> String { updates.position }

    func events(after position: String, limit: Int) async throws -> SubscriptionStep {
        let (updated, now) = try updates.updated(uri, after: position)
        let events = updated ? [SubscriptionEvent(params: ["uri": .string(uri)], position: now)] : []
        return SubscriptionStep(events: events, position: now, hasMore: false)
    }
}
