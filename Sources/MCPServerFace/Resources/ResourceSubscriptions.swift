import DomainMethods
import JSONRPC

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
