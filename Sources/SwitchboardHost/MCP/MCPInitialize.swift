import Jansson
import JSONRPC

/// The answer to an MCP client's `initialize`: the negotiated revision, tools, resources (with
/// `subscribe` and `listChanged`) and prompts, and who we are. The connection then speaks MCP (``NotificationDialect/mcp(listens:)``).
public struct MCPInitializeResult: Encodable, Sendable {
    public struct Capabilities: Encodable, Sendable {
        public struct Tools: Encodable, Sendable { public var listChanged = true }
        public struct Resources: Encodable, Sendable {
            public var subscribe = true
            public var listChanged = true
        }

        public struct Prompts: Encodable, Sendable { public var listChanged = true }

        public var tools = Tools()
        public var resources = Resources()
        public var prompts = Prompts()
    }

    public struct Implementation: Encodable, Sendable {
        public var name: String
        public var title: String
        public var version: String
    }

    public var protocolVersion: String
    public var capabilities = Capabilities()
    public var serverInfo = Implementation(name: HostInfo.name, title: "switchboard", version: HostInfo.version)
    public var instructions = """
        Every switchboard method is a tool of the same name (inbox.list, mail.send, feed.list, …); its \
        inputSchema and outputSchema come from rpc.discover. Resources: mail://inbox, feed://items, \
        feed://item/{id} and the plugins'; subscribe to be told when they change.
        """

    public init(protocolVersion: String) {
        self.protocolVersion = protocolVersion
    }

    static func answering(_ params: Initialize.Params, on connection: Connection) -> MCPInitializeResult {
        MCPSession.speak(on: connection)
        return MCPInitializeResult(protocolVersion: MCPVersion.negotiate(params.protocolVersion ?? MCPVersion.latest))
    }
}
