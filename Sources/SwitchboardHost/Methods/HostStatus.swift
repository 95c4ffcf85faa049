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
        /// How plugins' `limits.processes` is held here; absent when the host has no plugins.
        public var processes: Processes?
    }

    /// How a confined plugin's process count is bounded on this machine.
    public struct Processes: Codable, Sendable, Equatable {
        /// `cgroup` (a pids cgroup per run: binds root too), `rlimit` (RLIMIT_NPROC in the plugin's user namespace),
        /// `none` (root, or no user namespace, and no cgroup).
        public var by: String
        /// The host's cgroup folder, where each run's cgroup is made (with `by` `cgroup`).
        public var cgroup: String?
        /// 1 or 2 (with `by` `cgroup`).
        public var cgroupVersion: Int?
        /// Why no cgroup could be made (otherwise).
        public var reason: String?

        public init(by: String, cgroup: String? = nil, cgroupVersion: Int? = nil, reason: String? = nil) {
            self.by = by
            self.cgroup = cgroup
            self.cgroupVersion = cgroupVersion
            self.reason = reason
        }
    }

    static func status(of connection: Connection, store: Store?, processes: Processes?) -> Result {
        Result(inFlight: connection.inFlightCount, framing: connection.framing?.rawValue, shuttingDown: connection.isShuttingDown,
               sandbox: Sandbox(available: ConfinementSupport.landlockABI != nil, landlockAbi: ConfinementSupport.landlockABI,
                                networkNamespaces: ConfinementSupport.networkNamespaces, kernel: ConfinementSupport.kernelRelease,
                                processes: processes),
               store: store)
    }
}
