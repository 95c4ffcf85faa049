import SwitchboardCore

/// The state of ``InMemoryMailService``: every message of every account, and the bookkeeping the
/// SQLite store keeps in tables (sequence numbers, which conversations changed when, the change log).
struct InMemoryMailbox: Sendable {
    var accounts: [String: Account] = [:]
    var records: [MailRecord] = []
    /// account → uid → position in `records`.
    var positions: [String: [String: Int]] = [:]
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
        positions[account]?[uid].map { records[$0] }
    }

    mutating func logChange(_ account: String, _ uid: String, _ kind: ChangeRecord.Kind) {
        log.record(scope: account, itemID: uid, kind: kind)
    }

    /// Adds demo or imported data as the starting state: no change records, sequence 0.
    mutating func load(_ record: MailRecord) {
        positions[record.account, default: [:]][record.uid] = records.count
        records.append(record)
    }

    /// The position of every message whose uid `uids` names, or ``ServiceError/notFound(kind:id:)``
    /// for the first unknown one.
    func positions(of uids: [String], account: String) throws(ServiceError) -> [Int] {
        var found: [Int] = []
        for uid in uids {
            guard let position = positions[account]?[uid] else {
                throw ServiceError.notFound(kind: "message", id: uid)
            }
            if !found.contains(position) { found.append(position) }
        }
        return found
    }

    /// Stores a new message, threads it, and re-threads the replies to it that arrived first (see
    /// ``MailService``). Logs the message as created and every re-threaded one as updated.
    mutating func insert(account: String, uid: String, message: MailDraft, folder: Folder, read: Bool, time: Int64) {
        let parent = message.inReplyTo.flatMap { $0 == uid ? nil : record(account, $0) }
        let threadId = parent?.threadId ?? uid
        load(MailRecord(account: account, uid: uid, threadId: threadId, folder: folder, from: message.from, to: message.to,
                        cc: message.cc, subject: message.subject, text: message.text, inReplyTo: message.inReplyTo,
                        time: time, read: read, folderSeq: sequence))
        logChange(account, uid, .created)
        var touched: Set<GroupKey> = [GroupKey(account: account, folder: folder, threadId: threadId)]
        let children = records.filter { $0.account == account && $0.inReplyTo == uid && $0.uid != uid }
            .sorted(by: MailRecord.chronological)
        for child in children {
            let old = record(account, child.uid)!.threadId
            guard old != threadId else { continue }
            let members = records.indices.filter { records[$0].account == account && records[$0].threadId == old }
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

    /// Marks conversations as changed by the current write; forgets the ones left empty.
    mutating func stamp(_ groups: Set<GroupKey>) {
        for group in groups {
            let exists = records.contains { $0.account == group.account && $0.folder == group.folder && $0.threadId == group.threadId }
            groupUpdated[group] = exists ? sequence : nil
        }
    }

    /// The messages of `account` in `folder`, by conversation.
    func groups(account: String, folder: Folder) -> [String: [MailRecord]] {
        Dictionary(grouping: records.filter { $0.account == account && $0.folder == folder }, by: \.threadId)
    }
}
