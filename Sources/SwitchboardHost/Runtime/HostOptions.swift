import JSONRPC
import Logging

/// How the stdio host runs: what the `serve` command's flags set.
public struct HostOptions: Sendable {
    /// `nil` detects the framing from the first bytes.
    public var framing: Framing?
    public var limits: ConnectionLimits
    /// How long end of input, `exit` or SIGTERM/SIGINT waits for in-flight requests before cancelling
    /// them, in milliseconds.
    public var drainTimeoutMilliseconds: Int
    /// How long an LSP message may stay half-received before it is answered as truncated (0: forever).
    public var frameTimeoutMilliseconds: Int
    /// Where every frame in and out is written as it passes (`--record`); nil records nothing.
    public var recorder: FrameRecorder?

    public init(framing: Framing? = nil, limits: ConnectionLimits = ConnectionLimits(),
                drainTimeoutMilliseconds: Int = 5_000, frameTimeoutMilliseconds: Int = 5_000, recorder: FrameRecorder? = nil) {
        self.framing = framing
        self.limits = limits
        self.drainTimeoutMilliseconds = drainTimeoutMilliseconds
        self.frameTimeoutMilliseconds = frameTimeoutMilliseconds
        self.recorder = recorder
    }
}
