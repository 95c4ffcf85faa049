/// What came back in a phase of a run, by kind.
struct ResponseCounts {
    var ok: UInt64 = 0
    var rpcErrors: UInt64 = 0
    var malformed: UInt64 = 0
    var unmatched: UInt64 = 0
    var notifications: UInt64 = 0
    var serverRequests: UInt64 = 0
    private var reported = false
    private var shown = 0

    var completed: UInt64 { ok + rpcErrors }
    var errors: UInt64 { rpcErrors + malformed + unmatched }

    /// Prints the first bad frame of a run to stderr, once.
    mutating func reportOnce(_ what: String, _ incoming: Incoming) {
        guard !reported else { return }
        reported = true
        printError("\(what): \(incoming.excerpt)")
    }

    /// `--show N`: the first N answers to stderr.
    mutating func show(_ incoming: Incoming, limit: Int) {
        guard shown < limit else { return }
        shown += 1
        printError("answer \(shown): \(incoming.excerpt)")
    }
}
