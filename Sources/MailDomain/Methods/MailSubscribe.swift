import DomainMethods
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

extension ChangeHintFeed {
    /// `mail.changed` hints for one account's mail.
    static func mail(_ mail: any MailService, account: String) -> ChangeHintFeed {
        ChangeHintFeed(method: "mail.changed", state: { try await mail.state() },
                       changes: { since, limit in try await mail.changes(account: account, since: since, limit: limit) })
    }
}
