/// Where a connection's outgoing frames go. One sink owns its output, so frames never interleave.
public protocol FrameSink: AnyObject, Sendable {
    /// Writes frames produced on the input thread. May block while the output is full: that holds up
    /// reading too, which is the backpressure a stdio server owes its client.
    func writeFromInput(_ bytes: [UInt8])
    /// Queues frames produced by a task and returns at once; a writer sends them in order.
    func enqueue(_ bytes: [UInt8])
    /// Blocks until every queued frame is written (or the output is gone); with a deadline
    /// (monotonic nanoseconds), returns false if it passed first.
    @discardableResult
    func flush(deadline: UInt64?) -> Bool
}

extension FrameSink {
    /// Blocks until every queued frame is written (or the output is gone).
    public func flush() { flush(deadline: nil) }
}
