import DomainMethods
import Jansson
import JSONRPC

/// `resources.list {cursor?}` → the resources of the core domains and the plugins, in one page.
public enum ResourcesList: RPCMethod {
    public static let name = "resources.list"
    public static let summary = "Lists the resources of the domains and plugins (URI, name, owner)."

    public struct Params: Decodable, Sendable {
        public var cursor: String?
    }

    public struct Result: Encodable, Sendable {
        public var items: [JSONValue]
        public var nextCursor: String?
        public var hasMore: Bool

        private enum CodingKeys: String, CodingKey { case items, nextCursor, hasMore }

        /// `nextCursor` is written as `null` at the end, like every list's.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(items, forKey: .items)
            try container.encode(nextCursor, forKey: .nextCursor)
            try container.encode(hasMore, forKey: .hasMore)
        }
    }
}

/// `resources.templates` → the URI templates of the domains and plugins.
public enum ResourcesTemplates: RPCMethod {
    public static let name = "resources.templates"
    public static let summary = "Lists the resource URI templates of the domains and plugins."

    public struct Result: Encodable, Sendable {
        public var items: [JSONValue]
    }
}

/// `resources.read {uri}` → the contents, from the domain or plugin that owns the URI.
public enum ResourcesRead: RPCMethod {
    public static let name = "resources.read"
    public static let summary = "Reads a resource by URI from the domain or plugin that owns it."

    public struct Params: Decodable, Sendable {
        public var uri: String
    }

    public typealias Result = JSONValue
}

extension MethodRegistry {
    /// `resources.list`, `resources.templates`, `resources.read`; with `subscriptions`, also
    /// `resources.subscribe` and `resources.unsubscribe`.
    public static func resourceMethods(_ catalog: ResourceCatalog, subscriptions: SubscriptionHub? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.register(ResourcesList.self) { params, context in
            if let cursor = params.cursor {
                // Everything fits one page: no cursor was ever handed out.
                throw ResponseError.invalidParams(JSONFieldError(field: "cursor", expected: "a cursor from resources.list (it has one page)",
                                                                 got: JSONFieldError.excerpt(cursor)))
            }
            catalog.plugins?.addClient(context.connection)
            return ResourcesList.Result(items: await catalog.list(), nextCursor: nil, hasMore: false)
        }
        registry.register(ResourcesTemplates.self) { _, _ in ResourcesTemplates.Result(items: await catalog.templates()) }
        registry.register(ResourcesRead.self) { params, context in try await catalog.read(params.uri, context: context) }
        if let subscriptions {
            registry.registerSubscriptions(ResourcesSubscribe.self, ResourcesUnsubscribe.self, namespace: "resources", hub: subscriptions) {
                params, context in try await catalog.updates(of: params.uri, context: context)
            }
        }
        return registry
    }
}
