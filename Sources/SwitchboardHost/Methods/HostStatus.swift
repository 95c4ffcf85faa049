import JSONRPC
import SwitchboardCore

/// `host.status` → the connection's live state: requests in flight, framing, shutdown; and whether this
/// machine can confine plugins.
public enum HostStatus: RPCMethod {
    public static let name = "host.status"
    public static let summary = "Reports requests in flight, the framing, whether shutdown was requested and whether plugins can be confined."

    public struct Result: Codable, Sendable, Equatable {
        /// Task-run requests running or waiting for a slot (this one is not counted).
        public var inFlight: Int
        public var framing: String?
        public var shuttingDown: Bool
        public var sandbox: Sandbox
    }

    /// What the machine offers to confine plugins (``ConfinementSupport``).
    public struct Sandbox: Codable, Sendable, Equatable {
        /// Whether plugins with a policy can run confined (Landlock is there).
        public var available: Bool
        public var landlockAbi: Int?
        /// Whether `network: false` gets a network namespace of its own (else Landlock's TCP rules only).
        public var networkNamespaces: Bool
        public var kernel: String
    }

    static func status(of connection: Connection) -> Result {
        Result(inFlight: connection.inFlightCount, framing: connection.framing?.rawValue, shuttingDown: connection.isShuttingDown,
               sandbox: Sandbox(available: ConfinementSupport.landlockABI != nil, landlockAbi: ConfinementSupport.landlockABI,
                                networkNamespaces: ConfinementSupport.networkNamespaces, kernel: ConfinementSupport.kernelRelease))
    }
}
