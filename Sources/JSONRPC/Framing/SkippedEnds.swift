/// The first and last bytes of a body the framer skips, kept as they stream by: at most
/// ``MessageEnds/headCapacity`` bytes of its start and twice ``MessageEnds/tailCapacity`` (plus two)
/// of its end, whatever its length.
struct SkippedEnds {
    private var head: [UInt8] = []
    /// The latest bytes after `head`: all of them while few, then at least the last `tailKept`.
    private var tail: [UInt8] = []
    /// Bytes appended in all.
    private(set) var count = 0

    /// One more than the tail given out, for a CR dropped from the end of an NDJSON line.
    private static let tailKept = MessageEnds.tailCapacity + 1

    /// Bytes stored.
    var storedByteCount: Int { head.count + tail.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
        let headTake = min(MessageEnds.headCapacity - head.count, bytes.count)
        if headTake > 0 { head.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<headTake])) }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[headTake...])
        guard !rest.isEmpty else { return }
        if rest.count >= Self.tailKept {
            tail.removeAll(keepingCapacity: true)
            tail.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[(rest.count - Self.tailKept)...]))
        } else {
            tail.append(contentsOf: rest)
            // Trimmed once it doubles: amortised, each byte is moved at most once.
            if tail.count > 2 * Self.tailKept { tail.removeFirst(tail.count - Self.tailKept) }
        }
    }

    /// Calls `body` with the ends of the body made of the first `length` bytes appended (`length` is
    /// `count`, or one less when a final CR is not part of it). `cutShort`: the body is longer than
    /// what came, so the last bytes appended are not its end, and the tail is left empty.
    func withEnds<R>(length: Int, cutShort: Bool = false, _ body: (MessageEnds) throws -> R) rethrows -> R {
        let length = min(max(length, 0), count)
        let dropped = count - length
        let headLength = min(head.count, length)
        let afterHead = length - headLength
        let tailEnd = max(tail.count - dropped, 0)
        let tailLength = cutShort ? 0 : min(afterHead, MessageEnds.tailCapacity, tailEnd)
        return try head.withUnsafeBytes { head in
            try tail.withUnsafeBytes { tail in
                try body(MessageEnds(
                    head: UnsafeRawBufferPointer(rebasing: head[0..<headLength]),
                    tail: UnsafeRawBufferPointer(rebasing: tail[(tailEnd - tailLength)..<tailEnd]),
                    isWhole: !cutShort && tailLength == afterHead))
            }
        }
    }
}
