import Jansson
import JSONRPC

/// `initialize` — optional handshake, as in LSP and MCP: tells the client who we are, the framing,
/// the limits and the namespaces. Nothing requires it; a bare request works without it. An MCP
/// client (``MCPVersion``) gets MCP's answer instead, and the connection speaks MCP from then on.
public enum Initialize: RPCMethod {
    public static let name = "initialize"
    public static let summary = "Optional handshake: server name and version, framing, limits and namespaces."

    /// Open: LSP and MCP clients send more than these members (`capabilities`, `rootUri`, …).
    public struct Params: Decodable, Sendable, OpenParams {
        /// The client's process id (LSP): the host exits when that process dies.
        public var processId: Int?
        /// MCP clients send the protocol version they speak: with `clientInfo` or `capabilities` the
        /// answer is MCP's (``MCPVersion``); alone it is echoed back.
        public var protocolVersion: String?
        public var clientInfo: JSONValue?
        /// What the client can do (LSP and MCP); an MCP client is told by this or `clientInfo`.
        public var capabilities: JSONValue?
    }

    /// The host's own answer, or MCP's.
    public enum Result: Encodable, Sendable {
        case host(HostResult)
        case mcp(MCPInitializeResult)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .host(let result): try result.encode(to: encoder)
            case .mcp(let result): try result.encode(to: encoder)
            }
        }
    }

    public struct HostResult: Encodable, Sendable {
        public struct ServerInfo: Encodable, Sendable {
            public var name: String
            public var version: String
        }

        public struct Limits: Encodable, Sendable {
            public var maxMessageBytes: Int
            public var maxBatchLength: Int
            public var maxNestingDepth: Int
            public var maxInFlight: Int
            public var maxOutputBytes: Int
            public var maxValues: Int
        }

        public struct Capabilities: Encodable, Sendable {
            public var framing: String
            public var limits: Limits
            public var namespaces: [String]
            public var cancellation: String
            public var progress: String
            /// What the host sends after dropping pushed notifications while the client did not read.
            public var notificationsDropped: String
            public var discovery: String
        }

        public var serverInfo: ServerInfo
        public var protocolVersion: String?
        public var capabilities: Capabilities
    }

    static func result(_ params: Params, connection: Connection) -> Result {
        if MCPVersion.isMCPHandshake(params) { return .mcp(.answering(params, on: connection)) }
        let limits = connection.limits
        return .host(HostResult(
            serverInfo: .init(name: HostInfo.name, version: HostInfo.version),
            protocolVersion: params.protocolVersion,
            capabilities: .init(
                framing: (connection.framing ?? .ndjson).rawValue,
                limits: .init(maxMessageBytes: limits.maxMessageBytes, maxBatchLength: limits.maxBatchLength,
                              maxNestingDepth: limits.maxNestingDepth, maxInFlight: limits.maxInFlight,
                              maxOutputBytes: limits.maxOutputBytes, maxValues: limits.maxValues),
                namespaces: connection.dispatcher.namespaces,
                cancellation: "$/cancelRequest",
                progress: "$/progress",
                notificationsDropped: "$/notificationsDropped",
                discovery: RPCDiscover.name
            )
        ))
    }
}

/// `initialized` (LSP) and `notifications/initialized` (MCP): accepted and ignored.
public enum Initialized: RPCNotification {
    public static let name = "initialized"
    public static let summary = "Client's acknowledgement of initialize; accepted and ignored."
    public typealias Params = JSONValue
}

public enum MCPInitialized: RPCNotification {
    public static let name = "notifications/initialized"
    public static let summary = "MCP's acknowledgement of initialize; accepted and ignored."
    public typealias Params = JSONValue
}

/// `shutdown` (LSP): answers null; later requests are refused until `exit`.
public enum Shutdown: RPCMethod {
    public static let name = "shutdown"
    public static let summary = "Prepares to exit: answers null, then refuses further requests."
    public typealias Result = NullResult
}

/// `exit` (LSP): drain and exit, with code 0 after `shutdown` and 1 without.
public enum Exit: RPCNotification {
    public static let name = "exit"
    public static let summary = "Exits once in-flight requests finish: code 0 after shutdown, else 1."
}

/// The server's name and version, as `initialize` and `rpc.discover` report them.
public enum HostInfo {
    public static let name = "switchboard"
    public static let version = "0.1.0"
}
