import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.subscribe` → `{subscriptionId, state}`; then `mail.changed {subscriptionId, state}` whenever
/// the signed-in account's mail changes (new mail, flags, moves), from this process or another on
/// the same database. A hint, as in JMAP push: the client calls `mail.changes` from its own state.
public enum MailSubscribe: RPCMethod {
    public static let name = "mail.subscribe"
    public static let summary = "Pushes mail.changed whenever the signed-in account's mail changes."
    public typealias Result = SubscribeResult
}

/// `mail.unsubscribe {subscriptionId}`.
public enum MailUnsubscribe: RPCMethod {
    public static let name = "mail.unsubscribe"
    public static let summary = "Ends a mail subscription of this connection."
    public typealias Params = UnsubscribeParams
    public typealias Result = UnsubscribeResult
}

/// The changes of one account, as `mail.changed` hints.
struct MailChangeFeed: SubscriptionFeed {
    let mail: any MailService
    let account: String

    var method: String { "mail.changed" }
    var coalesces: Bool { true }

    func start() async throws -> String { try await mail.state() }

    func events(after position: String, limit: Int) async throws -> SubscriptionStep {
        let changes = try await mail.changes(account: account, since: position, limit: ChangeTracking.maxChanges)
        let changed = !(changes.created.isEmpty && changes.updated.isEmpty && changes.destroyed.isEmpty)
        let events = changed ? [SubscriptionEvent(params: ["state": .string(changes.newState)], position: changes.newState)] : []
        return SubscriptionStep(events: events, position: changes.newState, hasMore: changes.hasMoreChanges)
    }
}
