/// The length of the NDJSON line a plugin is still writing, so that output without end (one line
/// that never finishes) stops the plugin as soon as it passes the message limit. The framer alone
/// reports an oversized line only at its newline, which such a plugin never writes.
struct OpenLine {
    /// The longest message body allowed (`--max-message-bytes`).
    let limit: Int
    /// Bytes since the last newline.
    private(set) var length = 0

    init(limit: Int) { self.limit = limit }

    /// Adds what was read; true once the open line is longer than a message may be (plus a CR).
    mutating func grows(by chunk: ArraySlice<UInt8>) -> Bool {
        if let newline = chunk.lastIndex(of: 0x0A) {
            length = chunk.endIndex - newline - 1
        } else {
            length += chunk.count
        }
        return length - 1 > limit
    }
}
