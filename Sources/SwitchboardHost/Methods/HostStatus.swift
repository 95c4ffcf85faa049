import JSONRPC

/// `host.status` → the connection's live state: requests in flight, framing, shutdown.
public enum HostStatus: RPCMethod {
    public static let name = "host.status"
    public static let summary = "Reports requests in flight, the framing and whether shutdown was requested."

    public struct Result: Codable, Sendable, Equatable {
        /// Task-run requests running or waiting for a slot (this one is not counted).
        public var inFlight: Int
        public var framing: String?
        public var shuttingDown: Bool
    }

    static func status(of connection: Connection) -> Result {
        Result(inFlight: connection.inFlightCount, framing: connection.framing?.rawValue, shuttingDown: connection.isShuttingDown)
    }
}
