import Jansson

/// The sandbox of a plugin as `plugins.list` shows it: as applied to its current or last run, or as
/// planned before its first.
public struct PluginSandboxStatus: Encodable, Sendable, Equatable {
    /// Whether Landlock confines the run (false: it runs unconfined by `--allow-unconfined-plugins`).
    public var enforced: Bool
    public var landlockAbi: Int?
    /// Readable beneath these (the defaults and the declared ones).
    public var read: [String]
    /// Writable beneath these.
    public var write: [String]
    /// Declared paths that do not exist (not part of the sandbox).
    public var missing: [String]
    public var network: SandboxPolicy.Network
    /// How `network` is held: `namespace` (its own network namespace, only loopback: TCP and UDP),
    /// `proxy` (its own network namespace; out only through the host's proxy, by name), `landlockTcp` (TCP
    /// bind and connect refused; UDP not covered), `landlockTcpPorts` (TCP only to the allowed ports), `none`;
    /// absent before the first start.
    public var networkEnforcement: String?
    public var limits: Limits
    /// What is not covered, said in words.
    public var notes: [String]

    public struct Limits: Encodable, Sendable, Equatable {
        public var addressSpaceMB: Int
        public var openFiles: Int
        /// Absent when not applied (see `notes`).
        public var processes: Int?
        /// How `processes` is held: `cgroup` (a pids cgroup of the plugin's own, `pids.max`: binds root too) or `rlimit`
        /// (RLIMIT_NPROC in its own user namespace); absent when not applied, and before the first start.
        public var processesBy: String?
        /// The run's pids cgroup (with `processesBy` `cgroup`).
        public var processesCgroup: String?
        public var coreDumps = false
    }
}

extension SandboxPolicy.Network: Encodable {
    /// `false`, `true` or `{"allow": [...]}`, as declared.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .none: try JSONValue.bool(false).encode(to: encoder)
        case .any: try JSONValue.bool(true).encode(to: encoder)
        case .allow(let entries): try JSONValue.object(["allow": .array(entries.map(JSONValue.string))]).encode(to: encoder)
        }
    }
}

/// `sandbox` of a `plugins.list` item: the status, or `null` for a plugin run unconfined on purpose.
public struct PluginSandboxField: Encodable, Sendable, Equatable {
    public var status: PluginSandboxStatus?

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let status { try container.encode(status) } else { try container.encodeNil() }
    }
}
