import GRDB
import SwitchboardCore
import SwitchboardStorage

/// Reading and writing message rows, conversation rows and counters: the SQL the writes share.
extension SQLiteMailService {
    static let recordColumns = """
        account, uid, thread_id, folder, from_addr, to_addrs, cc_addrs, subject, body, in_reply_to, date_ms, read, folder_seq
        """

    /// The record in `row`, whose columns from `offset` on are ``recordColumns``.
    static func record(_ row: Row, offset: Int = 0) -> MailRecord {
        MailRecord(
            account: row[offset], uid: row[offset + 1], threadId: row[offset + 2],
            folder: Folder(rawValue: row[offset + 3]) ?? .inbox, from: row[offset + 4],
            to: addresses(row[offset + 5]), cc: addresses(row[offset + 6]), subject: row[offset + 7], text: row[offset + 8],
            inReplyTo: row[offset + 9], time: row[offset + 10], read: row[offset + 11], folderSeq: row[offset + 12]
        )
    }

    static func record(_ row: Row) -> MailRecord { record(row, offset: 0) }

    static func addresses(_ joined: String) -> [String] {
        joined.isEmpty ? [] : joined.split(separator: "\n").map(String.init)
    }

    static func fetchRecord(_ db: Database, account: String, uid: String) throws -> MailRecord? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(recordColumns) FROM mail_message WHERE account = ? AND uid = ?"),
                         arguments: [account, uid]).map(record)
    }

    /// Inserts a message row and its search row.
    static func insertRow(_ record: MailRecord, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO mail_message(\(recordColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
            record.account, record.uid, record.threadId, record.folder.rawValue, record.from,
            record.to.joined(separator: "\n"), record.cc.joined(separator: "\n"), record.subject, record.text,
            record.inReplyTo, record.time, record.read, record.folderSeq,
        ])
        try db.cachedStatement(sql: "INSERT INTO mail_search(rowid, from_addr, subject, body) VALUES (?, ?, ?, ?)")
            .execute(arguments: [db.lastInsertedRowID, record.from, record.subject, record.text])
    }

    // MARK: Counters

    static func counter(_ db: Database, _ name: String) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM mail_counter WHERE name = ?"), arguments: [name]) ?? 0
    }

    static func setCounter(_ db: Database, _ name: String, _ value: Int64) throws {
        try db.cachedStatement(sql: "INSERT INTO mail_counter(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value")
            .execute(arguments: [name, value])
    }

    /// Starts a write that changes mail: the next mail sequence number.
    static func nextSequence(_ db: Database) throws -> Int64 {
        let next = try counter(db, "sequence") + 1
        try setCounter(db, "sequence", next)
        return next
    }

    // MARK: Conversations

    /// Rebuilds the listing row of each conversation in `groups` by ``ConversationRefresh``, stamped
    /// with `sequence`, and moves the folder counts by the difference.
    static func refresh(_ groups: Set<GroupKey>, sequence: Int64, _ db: Database) throws {
        for group in groups {
            let old = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT message_count, unread_count FROM mail_conversation WHERE account = ? AND folder = ? AND thread_id = ?"),
                arguments: [group.account, group.folder.rawValue, group.threadId]).map { (total: $0[0] as Int, unread: $0[1] as Int) }
            let records = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(recordColumns) FROM mail_message WHERE account = ? AND thread_id = ? AND folder = ?"),
                arguments: [group.account, group.threadId, group.folder.rawValue]).map(record)
            let refresh = ConversationRefresh(group, old: old, records: records)
            if let summary = refresh.summary {
                try writeSummary(summary, group: group, sequence: sequence, db)
            } else {
                try db.cachedStatement(sql: "DELETE FROM mail_conversation WHERE account = ? AND folder = ? AND thread_id = ?")
                    .execute(arguments: [group.account, group.folder.rawValue, group.threadId])
            }
            guard refresh.movesCounts else { continue }
            try db.cachedStatement(sql: """
                INSERT INTO mail_folder_count(account, folder, total, unread) VALUES (?, ?, ?, ?)
                ON CONFLICT(account, folder) DO UPDATE SET total = total + excluded.total, unread = unread + excluded.unread
                """).execute(arguments: [group.account, group.folder.rawValue, refresh.total, refresh.unread])
        }
    }

    static func writeSummary(_ summary: ConversationSummary, group: GroupKey, sequence: Int64, _ db: Database) throws {
        let conversation = summary.conversation
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO mail_conversation(account, folder, thread_id, latest_date, latest_uid, latest_from,
                latest_snippet, subject, participants, message_count, unread_count, updated_seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                group.account, group.folder.rawValue, group.threadId, summary.latestTime, conversation.latest.uid,
                conversation.latest.from, conversation.latest.snippet, conversation.subject,
                conversation.participants.joined(separator: "\n"), conversation.messageCount, conversation.unreadCount, sequence,
            ])
    }

    static let conversationColumns = """
        thread_id, subject, participants, message_count, unread_count, latest_uid, latest_from, latest_snippet, latest_date
        """

    static func conversation(_ row: Row) -> (Conversation, latestTime: Int64) {
        let latestTime: Int64 = row[8]
        let conversation = Conversation(
            threadId: row[0], subject: row[1], participants: Conversation.participants(stored: row[2]), messageCount: row[3], unreadCount: row[4],
            latest: LatestMessage(uid: row[5], from: row[6], snippet: row[7], date: Timestamp.format(latestTime))
        )
        return (conversation, latestTime)
    }

    // MARK: Lookups

    /// The thread id of stored message `uid`, if there is one.
    static func storedThread(_ db: Database, account: String, uid: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT thread_id FROM mail_message WHERE account = ? AND uid = ?"),
                            arguments: [account, uid])
    }

    /// The ids of the messages `uids` names, or ``ServiceError/notFound(kind:id:)`` for the first unknown one.
    static func rowIDs(of uids: [String], account: String, _ db: Database) throws -> [(id: Int64, record: MailRecord)] {
        var found: [(id: Int64, record: MailRecord)] = []
        for uid in uids {
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, \(recordColumns) FROM mail_message WHERE account = ? AND uid = ?"),
                arguments: [account, uid]) else {
                throw ServiceError.notFound(kind: "message", id: uid)
            }
            let id: Int64 = row[0]
            if !found.contains(where: { $0.id == id }) {
                found.append((id, record(row, offset: 1)))
            }
        }
        return found
    }
}
