import JSONRPC
import Logging

/// How the host runs its plugins: the `serve` flags that concern them.
public struct PluginSettings: Sendable {
    /// Limits of each plugin connection; a frame over `maxMessageBytes` is a protocol violation.
    public var limits: ConnectionLimits
    /// After closing a plugin's stdin, how long to wait before SIGTERM (and SIGTERM before SIGKILL).
    public var shutdownGraceMilliseconds: Int
    /// How long a listing (`plugins.list`, `rpc.discover`, `host.methods`, `tools/list`) waits for plugins
    /// to start; one that starts later is announced when it does.
    public var listingWaitMilliseconds: Int
    /// Crashes within ``crashWindowSeconds`` after which a plugin is `failed` until `plugins.restart`.
    public var maxCrashes: Int
    public var crashWindowSeconds: Int
    /// How plugins are confined (``SandboxSettings``).
    public var sandbox: SandboxSettings
    public var logger: Logger
    /// Tests only: connects each plugin to an MCP peer in the test process
    /// (``PluginProcess/attached(inputFD:outputFD:errorFD:signal:)``) instead of spawning its command.
    var attach: (@Sendable (PluginManifest) throws -> PluginProcess)?

    /// The listing wait unless `--plugin-wait` says otherwise.
    public static let defaultListingWaitMilliseconds = 5_000

    public init(limits: ConnectionLimits = ConnectionLimits(), shutdownGraceMilliseconds: Int = 2_000,
                listingWaitMilliseconds: Int = defaultListingWaitMilliseconds,
                maxCrashes: Int = 3, crashWindowSeconds: Int = 60, sandbox: SandboxSettings = SandboxSettings(), logger: Logger) {
        var limits = limits
        limits.maxValues = .max
        self.limits = limits
        self.shutdownGraceMilliseconds = shutdownGraceMilliseconds
        self.listingWaitMilliseconds = listingWaitMilliseconds
        self.maxCrashes = maxCrashes
        self.crashWindowSeconds = crashWindowSeconds
        self.sandbox = sandbox
        self.logger = logger
    }

    /// The pause before restarting after `crashes` recent crashes: 100 ms, doubling, at most 5 s.
    func backoffMilliseconds(afterCrashes crashes: Int) -> Int {
        guard crashes > 0 else { return 0 }
        return min(5_000, 100 << min(crashes - 1, 6))
    }
}
