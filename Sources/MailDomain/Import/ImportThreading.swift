import SwitchboardCore

/// Threads a batch of imported messages exactly as storing them one at a time would (a reply joins
/// its parent's conversation; a message whose replies came first pulls their conversations into its
/// own), but in one pass: each new message gets its final thread id, and each stored conversation
/// that joins another is moved once. Both services store what it plans, so they thread alike, and a
/// batch costs what its messages cost, not what their conversations hold.
struct ImportThreading {
    /// A message to store, with its conversation.
    struct Entry {
        var record: ImportRecord
        var threadId: String
    }

    /// The new messages, in batch order.
    private(set) var entries: [Entry] = []
    /// Uids the store (or the batch, earlier) already has, in batch order.
    private(set) var skipped: [String] = []
    /// Stored conversations that join another, in the order the batch met them: thread id before
    /// the batch → thread id after it.
    private(set) var moves: [(old: String, new: String)] = []

    /// - Parameters:
    ///   - storedThread: the thread id of a message stored before the batch, nil when there is none.
    ///   - storedReplies: the thread ids of the stored messages that answer a uid (other than itself).
    init(_ records: [ImportRecord], storedThread: (String) throws -> String?,
         storedReplies: (String) throws -> [String]) rethrows {
        // Keyed by exact bytes, as the stores compare uids (``ExactID``): `é` and `e\u{301}` are two messages.
        var threadOf: [ExactID: String] = [:]       // new uid → its thread id when it was placed
        var joined: [ExactID: String] = [:]         // thread id → the thread it joined later
        var waiting: [ExactID: [String]] = [:]      // uid not seen yet → new uids that answer it
        var storedThreads: [String] = []            // stored thread ids the batch met, first meeting first
        func current(_ thread: String) -> String {
            var thread = thread
            while let next = joined[ExactID(thread)] { thread = next }
            return thread
        }
        for record in records {
            let uid = record.uid
            if try threadOf[ExactID(uid)] != nil || storedThread(uid) != nil {
                skipped.append(uid)
                continue
            }
            var thread = uid
            if let parent = record.message.inReplyTo, !parent.hasSameBytes(as: uid) {
                if let placed = threadOf[ExactID(parent)] {
                    thread = current(placed)
                } else if let stored = try storedThread(parent) {
                    storedThreads.append(stored)
                    thread = current(stored)
                } else {
                    waiting[ExactID(parent), default: []].append(uid)
                }
            }
            threadOf[ExactID(uid)] = thread
            entries.append(Entry(record: record, threadId: thread))
            // The replies that came first, stored or in this batch, join this conversation.
            let replies = try storedReplies(uid)
            storedThreads += replies
            for reply in replies + (waiting.removeValue(forKey: ExactID(uid)) ?? []).compactMap({ threadOf[ExactID($0)] }) {
                let old = current(reply)
                if ExactID(old) != ExactID(thread) { joined[ExactID(old)] = thread }
            }
        }
        for index in entries.indices { entries[index].threadId = current(entries[index].threadId) }
        var seen = Set<ExactID>()
        for stored in storedThreads where seen.insert(ExactID(stored)).inserted && ExactID(current(stored)) != ExactID(stored) {
            moves.append((stored, current(stored)))
        }
    }
}
