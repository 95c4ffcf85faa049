import Jansson
import JSONRPC

/// MCP `resources/list {cursor?}` → `{resources, nextCursor?}`: what `resources.list` lists.
public enum MCPResourcesList: RPCMethod {
    public static let name = "resources/list"
    public static let summary = "MCP: lists the resources of the domains and plugins."
    public typealias Params = ToolsList.Params
    public typealias Result = JSONValue
}

/// MCP `resources/templates/list {cursor?}` → `{resourceTemplates, nextCursor?}`: what `resources.templates` lists.
public enum MCPResourceTemplatesList: RPCMethod {
    public static let name = "resources/templates/list"
    public static let summary = "MCP: lists the resource URI templates of the domains and plugins."
    public typealias Params = ToolsList.Params
    public typealias Result = JSONValue
}

/// MCP `resources/read {uri}` → `{contents}`.
public enum MCPResourcesRead: RPCMethod {
    public static let name = "resources/read"
    public static let summary = "MCP: reads a resource by URI."
    public typealias Params = ResourceParams
    public typealias Result = JSONValue
}

/// MCP `resources/subscribe {uri}` → `{}`; then `notifications/resources/updated {uri}` on each change.
public enum MCPResourcesSubscribe: RPCMethod {
    public static let name = "resources/subscribe"
    public static let summary = "MCP: sends notifications/resources/updated whenever the resource changes."
    public typealias Params = ResourceParams
    public typealias Result = JSONValue
}

/// MCP `resources/unsubscribe {uri}` → `{}`.
public enum MCPResourcesUnsubscribe: RPCMethod {
    public static let name = "resources/unsubscribe"
    public static let summary = "MCP: stops the updates of a resource."
    public typealias Params = ResourceParams
    public typealias Result = JSONValue
}

/// The params of the MCP resource methods that name one resource; open, as ``ToolsList/Params``.
public struct ResourceParams: Decodable, Sendable, OpenParams {
    public var uri: String
    public var meta: JSONValue?

    private enum CodingKeys: String, CodingKey { case uri, meta = "_meta" }
}
