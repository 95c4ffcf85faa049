import GRDB
import SwitchboardCore
import SwitchboardStorage

/// Storing new messages (a send, a `mail.import` batch) in SQLite.
extension SQLiteMailService {
    /// Stores a batch of imported messages threaded by ``ImportThreading``, then rebuilds each
    /// conversation it touched once (not once per message: a long thread would cost its square).
    static func importBatch(account: String, _ records: [ImportRecord], _ db: Database) throws -> ImportOutcome {
        let threading = try threading(records, account: account, repliesOrder: "id", db)
        let outcome = ImportOutcome(imported: threading.entries.map(\.record.uid), skipped: threading.skipped)
        guard !threading.entries.isEmpty else { return outcome }
        var write = MailWrite(account: account, sequence: try nextSequence(db))
        try store(threading, order: .rethreadsFirst, placement: { MailRecord.placement(from: $0.message.from, account: account) },
                  &write, db)
        try finish(write, db)
        return outcome
    }

    /// Plans the threading of `records` from what is stored; stored replies to a new message are met
    /// in `repliesOrder` (an `ORDER BY` list of `mail_message` columns).
    static func threading(_ records: [ImportRecord], account: String, repliesOrder: String, _ db: Database) throws -> ImportThreading {
        try ImportThreading(
            records,
            storedThread: { try storedThread(db, account: account, uid: $0) },
            storedReplies: { uid in
                try String.fetchAll(
                    db.cachedStatement(sql: "SELECT thread_id FROM mail_message WHERE account = ? AND in_reply_to = ? AND uid != ? ORDER BY \(repliesOrder)"),
                    arguments: [account, uid, uid])
            })
    }

    /// Stores what `threading` planned: moves the stored conversations that join others, inserts the
    /// new rows (placed by `placement`), and notes both in `write`.
    static func store(_ threading: ImportThreading, order: MailWrite.Order, placement: (ImportRecord) -> (folder: Folder, read: Bool),
                      _ write: inout MailWrite, _ db: Database) throws {
        var rethreads: [MailWrite.Rethread] = []
        for (old, new) in threading.moves {
            let members = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT uid, folder FROM mail_message WHERE account = ? AND thread_id = ? ORDER BY date_ms, uid"),
                arguments: [write.account, old]).map { (uid: $0[0] as String, folder: Folder(rawValue: $0[1]) ?? .inbox) }
            try db.cachedStatement(sql: "UPDATE mail_message SET thread_id = ? WHERE account = ? AND thread_id = ?")
                .execute(arguments: [new, write.account, old])
            rethreads.append(MailWrite.Rethread(old: old, new: new, members: members))
        }
        let rows = write.rows(threading, placement: placement)
        for row in rows { try insertRow(row, db) }
        write.stored(rows, rethreads: rethreads, order: order)
    }

    /// Ends a write: its change records, then the conversations it touched rebuilt.
    static func finish(_ write: MailWrite, _ db: Database) throws {
        for change in write.changes { try ChangeLog.record(db, domain: write.scope, itemID: change.uid, kind: change.kind) }
        try refresh(write.touched, sequence: write.sequence, db)
    }
}
