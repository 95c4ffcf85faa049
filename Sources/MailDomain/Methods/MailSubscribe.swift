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

extension ChangeHintFeed {
    /// Hints for one account's mail: `mail.changed` by default, or another notification (with
    /// `params`) for what shows that mail, such as the `mail://inbox` resource.
    public static func mail(_ mail: LazyService<any MailService>, account: String, method: String = "mail.changed",
                            params: JSONObject = [:]) -> ChangeHintFeed {
        ChangeHintFeed(method: method, params: params, state: { try await mail.get().state() },
                       changes: { since, limit in try await mail.get().changes(account: account, since: since, limit: limit) })
    }
}
