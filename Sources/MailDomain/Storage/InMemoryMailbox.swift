import SwitchboardCore

/// The state of ``InMemoryMailService``: every message of every account, and the bookkeeping the
/// SQLite store keeps in tables (sequence numbers, which conversations changed when, the change log).
struct InMemoryMailbox: Sendable {
    var accounts: [String: Account] = [:]
    var records: [MailRecord] = []
    /// account → uid → position in `records`; uids compared by their bytes, as the stores compare them.
    var positions: [String: [ExactID: Int]] = [:]
    /// The sequence number of the last write that touched each conversation (absent: 0).
    var groupUpdated: [GroupKey: Int64] = [:]
    /// The mail sequence: one step per write that changed something.
    var sequence: Int64 = 0
    var sentCounter: Int64 = 0
    /// The change log, scoped by account, pruned as it grows.
    var log: InMemoryChangeLog

    init(log: InMemoryChangeLog = InMemoryChangeLog()) {
        self.log = log
    }

    /// The change-tracking state: read under the same lock as the write it follows.
    var state: String { log.state(domain: mailDomain) }

    func record(_ account: String, _ uid: String) -> MailRecord? {
        positions[account]?[ExactID(uid)].map { records[$0] }
    }

    mutating func logChange(_ account: String, _ uid: String, _ kind: ChangeRecord.Kind) {
        log.record(scope: account, itemID: uid, kind: kind)
    }

    /// Adds demo or imported data as the starting state: no change records, sequence 0.
    mutating func load(_ record: MailRecord) {
        positions[record.account, default: [:]][ExactID(record.uid)] = records.count
        records.append(record)
    }

    /// The position of every message whose uid `uids` names, or ``ServiceError/notFound(kind:id:)``
    /// for the first unknown one.
    func positions(of uids: [String], account: String) throws(ServiceError) -> [Int] {
        var found: [Int] = []
        for uid in uids {
            guard let position = positions[account]?[ExactID(uid)] else {
                throw ServiceError.notFound(kind: "message", id: uid)
            }
            if !found.contains(position) { found.append(position) }
        }
        return found
    }

    /// Stores a new message, threads it, and re-threads the replies to it that arrived first (see
    /// ``MailService``). Logs the message as created and every re-threaded one as updated.
    mutating func insert(account: String, uid: String, message: MailDraft, folder: Folder, read: Bool, time: Int64) {
        let parent = message.inReplyTo.flatMap { $0.hasSameBytes(as: uid) ? nil : record(account, $0) }
        let threadId = parent?.threadId ?? uid
        load(MailRecord(account: account, uid: uid, threadId: threadId, folder: folder, from: message.from, to: message.to,
                        cc: message.cc, subject: message.subject, text: message.text, inReplyTo: message.inReplyTo,
                        time: time, read: read, folderSeq: sequence))
        logChange(account, uid, .created)
        var touched: Set<GroupKey> = [GroupKey(account: account, folder: folder, threadId: threadId)]
        let children = records.filter { $0.account == account && $0.inReplyTo?.hasSameBytes(as: uid) == true && !$0.uid.hasSameBytes(as: uid) }
            .sorted(by: MailRecord.chronological)
        for child in children {
            let old = record(account, child.uid)!.threadId
            guard !old.hasSameBytes(as: threadId) else { continue }
            let members = records.indices.filter { records[$0].account == account && records[$0].threadId.hasSameBytes(as: old) }
                .sorted { MailRecord.chronological(records[$0], records[$1]) }
            for position in members {
                records[position].threadId = threadId
                logChange(account, records[position].uid, .updated)
                touched.insert(GroupKey(account: account, folder: records[position].folder, threadId: old))
                touched.insert(GroupKey(account: account, folder: records[position].folder, threadId: threadId))
            }
        }
        stamp(touched)
    }

    /// Stores a batch of imported messages threaded by ``ImportThreading``, in one pass over the
    /// mailbox for the whole batch (not one per message).
    mutating func importBatch(account: String, _ batch: [ImportRecord]) -> ImportOutcome {
        let uids = Set(batch.map { ExactID($0.uid) })
        var replies: [ExactID: [String]] = [:]
        for record in records where record.account == account {
            if let parent = record.inReplyTo.map(ExactID.init), parent != ExactID(record.uid), uids.contains(parent) {
                replies[parent, default: []].append(record.threadId)
            }
        }
        let threading = ImportThreading(batch, storedThread: { record(account, $0)?.threadId },
                                        storedReplies: { replies[ExactID($0)] ?? [] })
        let outcome = ImportOutcome(imported: threading.entries.map(\.record.uid), skipped: threading.skipped)
        guard !threading.entries.isEmpty else { return outcome }
        sequence += 1
        var touched = Set<GroupKey>()
        if !threading.moves.isEmpty {
            let moving = Set(threading.moves.map { ExactID($0.old) })
            let members = Dictionary(grouping: records.indices.filter { records[$0].account == account && moving.contains(ExactID(records[$0].threadId)) },
                                     by: { ExactID(records[$0].threadId) })
            for (old, new) in threading.moves {
                for position in (members[ExactID(old)] ?? []).sorted(by: { MailRecord.chronological(records[$0], records[$1]) }) {
                    touched.insert(GroupKey(account: account, folder: records[position].folder, threadId: old))
                    touched.insert(GroupKey(account: account, folder: records[position].folder, threadId: new))
                    records[position].threadId = new
                    logChange(account, records[position].uid, .updated)
                }
            }
        }
        for entry in threading.entries {
            let record = entry.record
            let (folder, read) = MailRecord.placement(from: record.message.from, account: account)
            load(MailRecord(account: account, uid: record.uid, threadId: entry.threadId, folder: folder, from: record.message.from,
                            to: record.message.to, cc: record.message.cc, subject: record.message.subject, text: record.message.text,
                            inReplyTo: record.message.inReplyTo, time: record.time, read: read, folderSeq: sequence))
            logChange(account, record.uid, .created)
            touched.insert(GroupKey(account: account, folder: folder, threadId: entry.threadId))
        }
        stamp(touched)
        return outcome
    }

    /// Marks conversations as changed by the current write; forgets the ones left empty.
    mutating func stamp(_ groups: Set<GroupKey>) {
        var existing = Set<GroupKey>()
        for record in records {
            let group = GroupKey(account: record.account, folder: record.folder, threadId: record.threadId)
            if groups.contains(group) { existing.insert(group) }
        }
        for group in groups { groupUpdated[group] = existing.contains(group) ? sequence : nil }
    }

    /// The messages of `account` in `folder`, by conversation (thread ids compared by their bytes).
    func groups(account: String, folder: Folder) -> [(threadId: String, records: [MailRecord])] {
        Dictionary(grouping: records.filter { $0.account == account && $0.folder == folder }, by: { ExactID($0.threadId) })
            .map { ($0.key.id, $0.value) }
    }
}
