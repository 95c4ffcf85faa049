import Jansson
import SwitchboardCore

/// The feed of a `<namespace>.changed {subscriptionId, state}` subscription: one hint whenever the
/// domain's changes (in the subscriber's scope) are not empty, the JMAP push model. The client then
/// calls `<namespace>.changes` from the state it holds; hints coalesce while it is not reading.
public struct ChangeHintFeed: SubscriptionFeed {
    public let method: String
    public var coalesces: Bool { true }
    private let state: @Sendable () async throws -> String
    private let changes: @Sendable (_ since: String, _ limit: Int) async throws -> ChangeSet
    private let params: JSONObject

    /// - Parameters:
    ///   - method: the notification, `mail.changed`.
    ///   - params: what each hint says besides `state` (`resources.updated` names its `uri`).
    ///   - state: the domain's state now.
    ///   - changes: the subscriber's changes since a state (its account's only, for mail).
    public init(method: String, params: JSONObject = [:], state: @escaping @Sendable () async throws -> String,
                changes: @escaping @Sendable (_ since: String, _ limit: Int) async throws -> ChangeSet) {
        self.method = method
        self.params = params
        self.state = state
        self.changes = changes
    }

    public func start() async throws -> String { try await state() }

    public func events(after position: String, limit: Int) async throws -> SubscriptionStep {
        let set = try await changes(position, ChangeTracking.maxChanges)
        let changed = !(set.created.isEmpty && set.updated.isEmpty && set.destroyed.isEmpty)
        var hint = params
        hint["state"] = .string(set.newState)
        let events = changed ? [SubscriptionEvent(params: hint, position: set.newState)] : []
        return SubscriptionStep(events: events, position: set.newState, hasMore: set.hasMoreChanges)
    }
}
