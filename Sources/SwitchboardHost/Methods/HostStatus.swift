import JSONRPC
import SwitchboardCore

/// `host.status` → the connection's live state: requests in flight, framing, shutdown; whether this
/// machine can confine plugins; and the store (a PostgreSQL URL shown without its password).
public enum HostStatus: RPCMethod {
    public static let name = "host.status"
    public static let summary = "Reports requests in flight, the framing, whether shutdown was requested, whether plugins can be confined and where the domains keep their data."

    public struct Result: Codable, Sendable, Equatable {
        /// Task-run requests running or waiting for a slot (this one is not counted).
        public var inFlight: Int
        public var framing: String?
        public var shuttingDown: Bool
        public var sandbox: Sandbox
        /// Where the domains keep their data; absent when the host serves no domains.
        public var store: Store?
    }

    /// The store the backend chosen at start uses.
    public struct Store: Codable, Sendable, Equatable {
        /// `sqlite`, `postgres` or `memory`.
        public var backend: String
        /// The SQLite file, or the PostgreSQL URL with its password replaced by `***`.
        public var location: String?

        public init(backend: String, location: String?) {
            self.backend = backend
            self.location = location
        }
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

    static func status(of connection: Connection, store: Store?) -> Result {
        Result(inFlight: connection.inFlightCount, framing: connection.framing?.rawValue, shuttingDown: connection.isShuttingDown,
               sandbox: Sandbox(available: ConfinementSupport.landlockABI != nil, landlockAbi: ConfinementSupport.landlockABI,
                                networkNamespaces: ConfinementSupport.networkNamespaces, kernel: ConfinementSupport.kernelRelease),
               store: store)
    }
}
