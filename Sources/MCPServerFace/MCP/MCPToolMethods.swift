import Jansson
import JSONRPC

/// MCP `ping` → `{}`.
public enum MCPPing: RPCMethod {
    public static let name = "ping"
    public static let summary = "MCP liveness check: answers {}."
    public typealias Params = MCPOpenParams
    public typealias Result = JSONValue
}

/// The params of an MCP request that reads none: open, as MCP's base request params are
/// (`[key: string]: unknown`), so members a later revision adds are ignored, not refused.
public struct MCPOpenParams: Decodable, Sendable, OpenParams {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}

/// MCP `tools/list {cursor?}` → `{tools, nextCursor?}`: every method as a tool with its schemas.
public enum ToolsList: RPCMethod {
    public static let name = "tools/list"
    public static let summary = "MCP: lists the methods as tools with input and output schemas, a page at a time."

    /// Open, as MCP's own requests are read everywhere: members a later revision adds are ignored.
    public struct Params: Decodable, Sendable, OpenParams {
        public var cursor: String?
        public var meta: JSONValue?

        private enum CodingKeys: String, CodingKey { case cursor, meta = "_meta" }
    }

    public typealias Result = JSONValue
}

/// MCP `tools/call {name, arguments?}` → `{content, structuredContent?, isError}`.
public enum ToolsCall: RPCMethod {
    public static let name = "tools/call"
    public static let summary = "MCP: calls a method as a tool; its errors come back as isError results."

    /// Open: members a later revision adds (2025-11-25's `task`) are ignored; `arguments` is checked by the tool.
    public struct Params: Decodable, Sendable, OpenParams {
        public var name: String
        public var arguments: JSONValue?
        public var meta: JSONValue?

        private enum CodingKeys: String, CodingKey { case name, arguments, meta = "_meta" }
    }

    public typealias Result = JSONValue
}
