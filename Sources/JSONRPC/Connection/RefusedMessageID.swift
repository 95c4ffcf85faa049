import Jansson

/// The id of a request refused unread — too long to keep (``FramerEvent/oversized(byteCount:limit:ends:)``)
/// or holding too many values (``JSONValueCount``) — read from its first and last few KiB, so that the
/// client, which matches answers by id, gets this one instead of waiting for ever.
///
/// - Important: Never a wrong id. One is given only for a single JSON object (not a batch) whose start
///   names a `method` — a request, or a message the host would answer `-32600` with its id too
///   (``IncomingMessage``), never an answer to a request of the host's, whose id is the host's — and
///   only from its top-level `id` member: read in full by the strict scanner from the start
///   (``JSONScanner/scanHead(_:maxDepth:)``), or closing the object at the end
///   (``JSONScanner/trailingID(_:)``) unless the end holds an LSP header (``holdsHeader(_:)``); when both
///   ends hold one, they must be the same. Anything else,
///   or a text that is not JSON as far as it was read, is answered with id `null`.
///   The bytes in between are not read: for a text broken there no id is right, and one found at an
///   end is given.
enum RefusedMessageID {
    /// The id's token as sent, or `nil` when none can be given.
    static func token(in ends: MessageEnds) -> [UInt8]? {
        if ends.isWhole {
            let whole = Array(ends.head) + Array(ends.tail)
            return whole.withUnsafeBytes { text in
                guard let head = JSONScanner.scanHead(text), head.isComplete, head.namesMethod else { return nil }
                return head.message.id.map { Array(text[$0]) }
            }
        }
        guard let head = JSONScanner.scanHead(ends.head), head.namesMethod else { return nil }
        if head.isComplete {
            // Only whitespace may follow an object that closed in the head.
            guard ends.tail.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        } else if !Self.holdsHeader(ends.tail), let last = JSONScanner.trailingID(ends.tail) {
            // An id at each end, and not the same: duplicates, or two messages framed as one (an LSP
            // Content-Length longer than its body swallows the next message, id last). Neither is sure.
            let first = head.message.id.map { Array(ends.head[$0]) }
            guard first == nil || first == Array(ends.tail[last]) else { return nil }
            return Array(ends.tail[last])
        }
        return head.message.id.map { Array(ends.head[$0]) }
    }

    /// Whether `tail` holds an LSP header (`Content-Length`, any case): a Content-Length longer than its
    /// body swallowed the next message, and an id at the end is that message's, not this one's.
    static func holdsHeader(_ tail: UnsafeRawBufferPointer) -> Bool {
        let name = Array("content-length".utf8)
        guard tail.count >= name.count else { return false }
        for start in 0...(tail.count - name.count) where (tail[start] | 0x20) == name[0] {
            if (0..<name.count).allSatisfy({ (tail[start + $0] | 0x20) == name[$0] }) { return true }
        }
        return false
    }
}
