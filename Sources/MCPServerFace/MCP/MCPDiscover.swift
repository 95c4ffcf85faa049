import Jansson
import JSONRPC
import SwitchboardHost

/// MCP `server/discover` (2026-07-28): what the server supports, without a handshake. Clients of that
/// revision then send the version, their info and capabilities in each request's `_meta`.
public enum ServerDiscover: RPCMethod {
    public static let name = "server/discover"
    public static let summary = "MCP 2026-07-28: the protocol versions, capabilities and instructions, without a handshake."
    public typealias Params = MCPOpenParams
    public typealias Result = JSONValue

    static func result(on connection: Connection) -> JSONValue {
        MCPSession.speak(on: connection)
        let server = MCPInitializeResult(protocolVersion: MCPVersion.stateless)
        return [
            "supportedVersions": .array(([MCPVersion.stateless] + MCPVersion.supported).map(JSONValue.string)),
            // Updates come through subscriptions/listen here; list changes are not offered on it yet.
            // Prompts are served as in the 2025-11-25 revision, so they are declared as its `initialize` does.
            "capabilities": ["tools": [:], "resources": ["subscribe": true], "prompts": [:]],
            "instructions": .string(server.instructions),
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": ["io.modelcontextprotocol/serverInfo": [
                "name": .string(server.serverInfo.name), "title": .string(server.serverInfo.title),
                "version": .string(server.serverInfo.version),
            ]],
        ]
    }
}
