import DomainMethods
import JSONRPC

/// `calendar.subscribe` → `{subscriptionId, state}`; then `calendar.changed {subscriptionId, state}`
/// whenever events are created, updated or deleted (here or by another process on the same
/// database): call `calendar.changes`.
public enum CalendarSubscribe: RPCMethod {
    public static let name = "calendar.subscribe"
    public static let summary = "Pushes calendar.changed whenever events change."
    public typealias Result = SubscribeResult
}

/// `calendar.unsubscribe {subscriptionId}`.
public enum CalendarUnsubscribe: RPCMethod {
    public static let name = "calendar.unsubscribe"
    public static let summary = "Ends a calendar subscription of this connection."
    public typealias Params = UnsubscribeParams
    public typealias Result = UnsubscribeResult
}
