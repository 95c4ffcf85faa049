/// The first and last bytes of a message body the framer did not deliver (``FramerEvent/oversized(byteCount:limit:ends:)``),
/// kept as it streamed by: enough to find the request's `id` (``RefusedMessageID``), at most
/// ``headCapacity`` + ``tailCapacity`` bytes whatever the body's length.
///
/// The buffers are valid only during the callback that receives them, like a `.message` body.
public struct MessageEnds {
    /// The most bytes kept from a body's start (an `id` near it: `{"jsonrpc":"2.0","id":5,"method":…`).
    public static let headCapacity = 4096
    /// The most bytes kept from a body's end (an `id` last: `…,"id":5}`).
    public static let tailCapacity = 4096

    /// The body's first bytes: all of them, up to ``headCapacity``.
    public let head: UnsafeRawBufferPointer
    /// The body's last bytes after `head`, up to ``tailCapacity``; empty when the body was cut short
    /// (its last bytes never came).
    public let tail: UnsafeRawBufferPointer
    /// `head` and then `tail` are the whole body.
    public let isWhole: Bool

    init(head: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer, isWhole: Bool) {
        self.head = head
        self.tail = tail
        self.isWhole = isWhole
    }

    /// The ends of a body held whole.
    public init(body: UnsafeRawBufferPointer) {
        let headEnd = min(body.count, Self.headCapacity)
        let tailStart = max(headEnd, body.count - Self.tailCapacity)
        head = UnsafeRawBufferPointer(rebasing: body[0..<headEnd])
        tail = UnsafeRawBufferPointer(rebasing: body[tailStart...])
        isWhole = tailStart == headEnd
    }
}
