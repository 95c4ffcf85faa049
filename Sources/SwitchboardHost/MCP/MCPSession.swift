import JSONRPC

/// What a connection keeps once it speaks MCP: its ``MCPListens``, and the dialect its
/// notifications pass through. Here, below the MCP server face (MCPServerFace), because the host's own
/// `initialize` makes a connection speak MCP too.
public enum MCPSession {
    private static let listensKey = "mcp.listens"

    /// Makes `connection` word its notifications for MCP (once; later calls change nothing).
    public static func speak(on connection: Connection) {
        var made = false
        let listens = connection.session.value(listensKey) { () -> MCPListens in
            made = true
            return MCPListens()
        }
        if made { connection.speak(.mcp(listens: listens)) }
    }

    /// The connection's `subscriptions/listen` streams (and its MCP dialect, set up now if it was not).
    public static func listens(of connection: Connection) -> MCPListens {
        speak(on: connection)
        return connection.session.value(listensKey) { MCPListens() }
    }
}
