import GRDB
import SwitchboardCore
import SwitchboardStorage

/// `mail.import`'s batches in SQLite.
extension SQLiteMailService {
    /// Stores a batch of imported messages threaded by ``ImportThreading``, then rebuilds each
    /// conversation it touched once (not once per message: a long thread would cost its square).
    static func importBatch(account: String, _ records: [ImportRecord], _ db: Database) throws -> ImportOutcome {
        let threading = try ImportThreading(
            records,
            storedThread: { try storedThread(db, account: account, uid: $0) },
            storedReplies: { uid in
                try String.fetchAll(
                    db.cachedStatement(sql: "SELECT thread_id FROM mail_message WHERE account = ? AND in_reply_to = ? AND uid != ?"),
                    arguments: [account, uid, uid])
            })
        let outcome = ImportOutcome(imported: threading.entries.map(\.record.uid), skipped: threading.skipped)
        guard !threading.entries.isEmpty else { return outcome }
        let sequence = try nextSequence(db)
        var touched = Set<GroupKey>()
        for (old, new) in threading.moves {
            try moveConversation(account: account, from: old, to: new, touched: &touched, db)
        }
        for entry in threading.entries {
            let record = entry.record
            let (folder, read) = MailRecord.placement(from: record.message.from, account: account)
            try insertRow(MailRecord(account: account, uid: record.uid, threadId: entry.threadId, folder: folder,
                                     from: record.message.from, to: record.message.to, cc: record.message.cc,
                                     subject: record.message.subject, text: record.message.text, inReplyTo: record.message.inReplyTo,
                                     time: record.time, read: read, folderSeq: sequence), db)
            try ChangeLog.record(db, domain: mailScope(account), itemID: record.uid, kind: .created)
            touched.insert(GroupKey(account: account, folder: folder, threadId: entry.threadId))
        }
        try refresh(touched, sequence: sequence, db)
        return outcome
    }
}
