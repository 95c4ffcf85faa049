import JSONRPC

extension MethodRegistry {
    /// Registers a namespace's `subscribe` and `unsubscribe` on `hub`: `subscribe` starts the feed
    /// `makeFeed` builds for the request (from its params and connection), `unsubscribe` ends a
    /// subscription of this connection in `namespace`.
    public mutating func registerSubscriptions<Subscribe: RPCMethod, Unsubscribe: RPCMethod>(
        _ subscribe: Subscribe.Type, _ unsubscribe: Unsubscribe.Type, namespace: String, hub: SubscriptionHub,
        makeFeed: @escaping @Sendable (_ params: Subscribe.Params, _ context: RequestContext) async throws -> any SubscriptionFeed
    ) where Subscribe.Result == SubscribeResult, Unsubscribe.Params == UnsubscribeParams, Unsubscribe.Result == UnsubscribeResult {
        registerDomain(subscribe) { params, context in
            try await hub.subscribe(namespace: namespace, feed: makeFeed(params, context), context: context)
        }
        registerDomain(unsubscribe) { params, context in
            try hub.unsubscribe(namespace: namespace, id: params.subscriptionId, context: context)
        }
    }
}
