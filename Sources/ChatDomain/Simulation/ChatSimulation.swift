/// A failure mode the chat service can be told to show (`--simulate`), so a client or a test
/// harness can exercise its error paths on demand. See ``SimulatedChatService``.
public enum ChatSimulation: String, Sendable, CaseIterable {
    /// Every chat request answers the rate-limit error (`-32029`, with `resetAt` one minute ahead
    /// of the clock and `retryAfterMs`).
    case rateLimit = "rate-limit"
    /// Every chat request answers the service-failure error (`-32060`) with a fresh `debugId`,
    /// which the host's log line for the failure names too.
    case serverError = "server-error"
    /// Each `chat.send` stays pending until the next chat request after its answer (from any client of this process)
    /// or ``SimulatedChatService/slowHold`` passes, whichever comes first. A held send keeps its
    /// in-flight slot, so at most `--max-in-flight` wait at once.
    case slow
}
