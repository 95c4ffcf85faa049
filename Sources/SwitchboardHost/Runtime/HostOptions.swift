import JSONRPC
import Logging

/// How the stdio host runs: what the `serve` command's flags set.
public struct HostOptions: Sendable {
    /// `nil` detects the framing from the first bytes.
    public var framing: Framing?
    public var limits: ConnectionLimits
    /// How long SIGTERM/SIGINT waits for in-flight requests before cancelling them, in milliseconds.
    public var drainTimeoutMilliseconds: Int
    /// How long an LSP message may stay half-received before it is answered as truncated (0: forever).
    public var frameTimeoutMilliseconds: Int

    public init(framing: Framing? = nil, limits: ConnectionLimits = ConnectionLimits(),
                drainTimeoutMilliseconds: Int = 5_000, frameTimeoutMilliseconds: Int = 5_000) {
        self.framing = framing
        self.limits = limits
        self.drainTimeoutMilliseconds = drainTimeoutMilliseconds
        self.frameTimeoutMilliseconds = frameTimeoutMilliseconds
    }
}
