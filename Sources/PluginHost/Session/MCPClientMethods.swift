import Jansson
import JSONRPC

/// MCP's `ping`, sent by either side: answered `{}`.
enum MCPPing: RPCMethod {
    static let name = "ping"
    static let summary = "MCP liveness check; answers {}."
    typealias Params = JSONValue
    typealias Result = JSONValue
}

/// MCP `roots/list`: the host offers the plugin no file roots.
enum MCPRootsList: RPCMethod {
    static let name = "roots/list"
    static let summary = "MCP roots: none are offered."
    typealias Params = JSONValue
    typealias Result = JSONValue
}

enum MCPProgress: RPCNotification {
    static let name = "notifications/progress"
    static let summary = "Progress of a tool call, passed on to the client as $/progress."
    typealias Params = JSONValue
}

enum MCPToolsListChanged: RPCNotification {
    static let name = "notifications/tools/list_changed"
    static let summary = "The plugin's tools changed: read again, host.methodsChanged pushed."
    typealias Params = JSONValue
}

enum MCPResourcesListChanged: RPCNotification {
    static let name = "notifications/resources/list_changed"
    static let summary = "The plugin's resources changed: read again, resources.listChanged pushed."
    typealias Params = JSONValue
}

enum MCPPromptsListChanged: RPCNotification {
    static let name = "notifications/prompts/list_changed"
    static let summary = "The plugin's prompts changed: read again, prompts.listChanged pushed."
    typealias Params = JSONValue
}

enum MCPResourceUpdated: RPCNotification {
    static let name = "notifications/resources/updated"
    static let summary = "A resource the plugin serves changed."
    typealias Params = JSONValue
}

enum MCPLogMessage: RPCNotification {
    static let name = "notifications/message"
    static let summary = "A log message from the plugin, into the host's log."
    typealias Params = JSONValue
}
