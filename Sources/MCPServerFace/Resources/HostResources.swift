import DomainMethods
import Jansson
import JSONRPC
import PluginHost
import SwitchboardCore

/// The resources both faces serve: `resources.*` (``MethodRegistry/resourceMethods(_:)``) and the MCP
/// face's `resources/*` call these same entry points, typed, in the caller's request: its connection
/// and session (the signed-in account).
public struct HostResources: Sendable {
    public let catalog: ResourceCatalog
    /// Where `resources.subscribe` subscriptions live; nil: resources cannot be subscribed.
    public let subscriptions: SubscriptionHub?

    /// The namespace of the subscriptions made here (`resources.unsubscribe` ends only those).
    static let namespace = "resources"

    public init(catalog: ResourceCatalog, subscriptions: SubscriptionHub?) {
        self.catalog = catalog
        self.subscriptions = subscriptions
    }

    /// A page of resources by URI; the caller then hears of plugins' list changes.
    func resourcePage(_ request: PageRequest, within context: RequestContext) async throws -> ResourcePage {
        catalog.plugins?.addClient(context.connection)
        return try ResourcePage(page: await catalog.list(), by: "uri", list: ResourcesList.list, request)
    }

    func templatePage(_ request: PageRequest) async throws -> ResourcePage {
        try ResourcePage(page: await catalog.templates(), by: "uriTemplate", list: ResourcesTemplates.list, request)
    }

    /// `{contents: [{uri, mimeType?, text | blob}]}` from whoever owns `uri`; `-32602` naming `uri` when no one does.
    func read(_ uri: String, within context: RequestContext) async throws -> JSONValue {
        try await catalog.read(uri, context: context)
    }

    /// `resources.subscribe`'s answer: a subscription of the caller's connection, following `uri`
    /// through its domain's change log or its plugin's updates. A service's error is answered, and a
    /// service failure logged, as a domain method's would be.
    func subscription(to uri: String, within context: RequestContext) async throws -> SubscribeResult {
        guard let subscriptions else { throw ResponseError.methodNotFound(ResourcesSubscribe.name) }
        do {
            return try await DomainRequest.$context.withValue(context) {
                try await subscriptions.subscribe(namespace: Self.namespace, feed: catalog.updates(of: uri, context: context), context: context)
            }
        } catch let error as ServiceError {
            throw ResponseError(service: error, method: ResourcesSubscribe.name, logger: context.logger)
        }
    }

    /// `resources.unsubscribe`'s answer.
    func unsubscription(_ subscriptionId: String, within context: RequestContext) throws -> UnsubscribeResult {
        guard let subscriptions else { throw ResponseError.methodNotFound(ResourcesUnsubscribe.name) }
        return try subscriptions.unsubscribe(namespace: Self.namespace, id: subscriptionId, context: context)
    }
}
