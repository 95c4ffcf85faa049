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
        var threadOf: [String: String] = [:]        // new uid → its thread id when it was placed
        var joined: [String: String] = [:]          // thread id → the thread it joined later
        var waiting: [String: [String]] = [:]       // uid not seen yet → new uids that answer it
        var storedThreads: [String] = []            // stored thread ids the batch met, first meeting first
        func current(_ thread: String) -> String {
            var thread = thread
            while let next = joined[thread] { thread = next }
            return thread
        }
        for record in records {
            let uid = record.uid
            if try threadOf[uid] != nil || storedThread(uid) != nil {
                skipped.append(uid)
                continue
            }
            var thread = uid
            if let parent = record.message.inReplyTo, parent != uid {
                if let placed = threadOf[parent] {
                    thread = current(placed)
                } else if let stored = try storedThread(parent) {
                    storedThreads.append(stored)
                    thread = current(stored)
                } else {
                    waiting[parent, default: []].append(uid)
                }
            }
            threadOf[uid] = thread
            entries.append(Entry(record: record, threadId: thread))
            // The replies that came first, stored or in this batch, join this conversation.
            let replies = try storedReplies(uid)
            storedThreads += replies
            for reply in replies + (waiting.removeValue(forKey: uid) ?? []).compactMap({ threadOf[$0] }) {
                let old = current(reply)
                if old != thread { joined[old] = thread }
            }
        }
        for index in entries.indices { entries[index].threadId = current(entries[index].threadId) }
        var seen = Set<String>()
        for stored in storedThreads where seen.insert(stored).inserted && current(stored) != stored {
            moves.append((stored, current(stored)))
        }
    }
}
