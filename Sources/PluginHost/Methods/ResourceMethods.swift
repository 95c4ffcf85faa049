import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `resources.list {cursor?, limit?}` → the resources of the core domains and the plugins, by URI, a
/// page at a time. A cursor is the URI the page ended with, so paging stays on course while plugins
/// start and stop.
public enum ResourcesList: RPCMethod {
    public static let name = "resources.list"
    public static let summary = "Lists the resources of the domains and plugins (URI, name, owner), a page at a time."

    public typealias Params = PageRequest

    static let list = "resources"

    /// The page of `items` (sorted here by URI) that `request` asks for.
    static func page(of items: [JSONValue], _ request: PageRequest) throws -> Result {
        let sorted = items.sorted { ($0["uri"]?.stringValue ?? "") < ($1["uri"]?.stringValue ?? "") }
        var start = 0
        if let text = request.cursor {
            let after = try Cursor.decode(text, list: list).id
            start = sorted.firstIndex { ($0["uri"]?.stringValue ?? "") > after } ?? sorted.count
        }
        let page = Array(sorted[start..<min(start + request.limit, sorted.count)])
        let hasMore = start + page.count < sorted.count
        let next = hasMore ? page.last?["uri"]?.stringValue.map { Cursor(list: list, sortKey: "", id: $0).encoded } : nil
        return Result(items: page, nextCursor: next, hasMore: hasMore)
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
            catalog.plugins?.addClient(context.connection)
            return try ResourcesList.page(of: await catalog.list(), params)
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
