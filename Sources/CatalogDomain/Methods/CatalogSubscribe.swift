import DomainMethods
import JSONRPC

/// `catalog.subscribe` → `{subscriptionId, state}`; then `catalog.changed {subscriptionId, state}`
/// whenever sectors or brochures change (an import here or in another process): call `catalog.changes`.
public enum CatalogSubscribe: RPCMethod {
    public static let name = "catalog.subscribe"
    public static let summary = "Pushes catalog.changed whenever sectors or brochures change."
    public typealias Result = SubscribeResult
}

/// `catalog.unsubscribe {subscriptionId}`.
public enum CatalogUnsubscribe: RPCMethod {
    public static let name = "catalog.unsubscribe"
    public static let summary = "Ends a catalog subscription of this connection."
    public typealias Params = UnsubscribeParams
    public typealias Result = UnsubscribeResult
}
