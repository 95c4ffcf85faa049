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
    public typealias Result = ResourcePage

    static let list = "resources"
}

/// A page of resources or templates, sorted by their address (`uri`, `uriTemplate`): `{items,
/// nextCursor, hasMore}`. A cursor is the address the page ended with, so paging stays on course while
/// plugins start and stop.
public struct ResourcePage: Encodable, Sendable {
    public var items: [JSONValue]
    public var nextCursor: String?
    public var hasMore: Bool

    /// The page of `items` that `request` asks for, sorted by their `key` member; cursors name `list`.
    init(page items: [JSONValue], by key: String, list: String, _ request: PageRequest) throws {
        let address: (JSONValue) -> String = { $0[key]?.stringValue ?? "" }
        let sorted = items.sorted { address($0) < address($1) }
        var start = 0
        if let text = request.cursor {
            let after = try Cursor.decode(text, list: list).id
            start = sorted.firstIndex { address($0) > after } ?? sorted.count
        }
        self.items = Array(sorted[start..<min(start + request.limit, sorted.count)])
        hasMore = start + self.items.count < sorted.count
        nextCursor = hasMore ? self.items.last.map { Cursor(list: list, sortKey: "", id: address($0)).encoded } : nil
    }

    private enum CodingKeys: String, CodingKey { case items, nextCursor, hasMore }

    /// `nextCursor` is written as `null` at the end, like every list's.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
        try container.encode(hasMore, forKey: .hasMore)
    }
}

/// `resources.templates {cursor?, limit?}` → the URI templates of the domains and plugins, by
/// template, a page at a time (like ``ResourcesList``).
public enum ResourcesTemplates: RPCMethod {
    public static let name = "resources.templates"
    public static let summary = "Lists the resource URI templates of the domains and plugins, a page at a time."

    public typealias Params = PageRequest
    public typealias Result = ResourcePage

    static let list = "resourceTemplates"
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
    /// `resources.list`, `resources.templates`, `resources.read`; with a subscription hub, also
    /// `resources.subscribe` and `resources.unsubscribe`. Each calls the same entry point of `resources`
    /// that the MCP face's `resources/*` call.
    public static func resourceMethods(_ resources: HostResources) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.register(ResourcesList.self) { params, context in try await resources.resourcePage(params, within: context) }
        registry.register(ResourcesTemplates.self) { params, _ in try await resources.templatePage(params) }
        registry.register(ResourcesRead.self) { params, context in try await resources.read(params.uri, within: context) }
        if resources.subscriptions != nil {
            registry.register(ResourcesSubscribe.self) { params, context in try await resources.subscription(to: params.uri, within: context) }
            registry.register(ResourcesUnsubscribe.self) { params, context in try resources.unsubscription(params.subscriptionId, within: context) }
        }
        return registry
    }
}
