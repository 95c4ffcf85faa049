/// What a connection does with a request that finds every slot and the queue behind them taken.
public enum AdmissionPolicy: Sendable {
    /// Stops reading until a slot frees: the backpressure a client's stdio gets.
    case wait
    /// Keeps reading and answers the request with the error made here (`method` and the number of
    /// requests running and queued): for a peer whose answers must always be read, like a plugin
    /// calling back into the host while the host waits for its tool results.
    case refuse(@Sendable (_ method: String, _ limit: Int) -> ResponseError)
}
