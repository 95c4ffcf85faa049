/// Where a connection's outgoing frames go. One sink owns its output, so frames never interleave.
///
/// A sink holds at most about `limit` bytes not yet written (a single larger frame is let through when
/// nothing else is queued, or it could never go). What happens at the bound depends on the frame:
/// - answers wait for room: ``writeFromInput(_:)`` blocks its thread, ``enqueue(_:)`` suspends its task;
///   nothing is dropped;
/// - pushes the host sends on its own (``offer(_:)``) are refused, and the sink calls the handler set with
///   ``setRoomHandler(_:)`` once it has room again, so the connection can tell the peer what it missed.
public protocol FrameSink: AnyObject, Sendable {
    /// Writes frames from a plain thread (the input thread, the drain). Blocks while the output is full:
    /// that holds up reading too, which is the backpressure a stdio server owes its client.
    func writeFromInput(_ bytes: [UInt8])
    /// Queues frames produced by a task, in order; suspends the task (never a pool thread) while the
    /// output is full, and returns once the frames are queued.
    func enqueue(_ bytes: [UInt8]) async
    /// Queues frames unless the output is full; false when they were refused (dropped).
    func offer(_ bytes: [UInt8]) -> Bool
    /// Writes or queues an answer at once if the output has room, never waiting; false when it is full
    /// and nothing was taken (the caller then waits with ``enqueue(_:)``). For answers completed on a
    /// thread that must not block, like a plugin's reader.
    func writeIfRoom(_ bytes: [UInt8]) -> Bool
    /// `handler` runs (on the writing thread, outside the sink's lock) each time the output has room again
    /// after ``offer(_:)`` refused frames.
    func setRoomHandler(_ handler: @escaping @Sendable () -> Void)
    /// Blocks until every queued frame is written (or the output is gone); with a deadline
    /// (monotonic nanoseconds), returns false if it passed first.
    @discardableResult
    func flush(deadline: UInt64?) -> Bool
}

extension FrameSink {
    /// Blocks until every queued frame is written (or the output is gone).
    public func flush() { flush(deadline: nil) }

    /// Takes nothing: the caller waits with ``enqueue(_:)``.
    public func writeIfRoom(_ bytes: [UInt8]) -> Bool { false }
}
