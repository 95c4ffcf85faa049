import DomainMethods
import Jansson
import SwitchboardHost

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
