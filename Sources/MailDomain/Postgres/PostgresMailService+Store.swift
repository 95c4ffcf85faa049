import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// Storing new messages and keeping the listing rows, folder counts and change records: set-based,
/// a few statements per write whatever the number of messages or conversations it touches.
extension PostgresMailService {
    /// The order stored replies to a new message are met in: what decides the order conversations join it.
    enum RepliesOrder {
        /// The order they were stored in (an import batch; SQLite's rowid order).
        case stored
        /// Oldest first (a sent message, which SQLite threads one reply at a time, oldest first).
        case chronological
    }

    /// Plans the threading of `records` (``ImportThreading``) from what is stored, read in two
    /// statements before anything is written: the conversation of every uid the batch names (its own
    /// and their parents'), and the conversations of the stored replies to its uids.
    static func threading(_ records: [ImportRecord], account: String, repliesOrder: RepliesOrder,
                          _ connection: PostgresConnection, logger: Logger) async throws -> ImportThreading {
        let uids = records.map(\.uid)
        let named = Array(Set(uids + records.compactMap(\.message.inReplyTo)))
        var threads: [ExactID: String] = [:]
        let stored = try await connection.query(
            "SELECT uid, thread_id FROM mail_message WHERE account = \(account) AND uid = ANY(\(named))", logger: logger)
        for try await (uid, thread) in stored.decode((String, String).self) { threads[ExactID(uid)] = thread }
        var replies: [ExactID: [String]] = [:]
        let order = repliesOrder == .stored ? "id" : "date_ms, uid"
        let answering = try await connection.query("""
            SELECT in_reply_to, thread_id FROM mail_message
            WHERE account = \(account) AND in_reply_to = ANY(\(uids)) AND uid <> in_reply_to ORDER BY \(unescaped: order)
            """, logger: logger)
        for try await (parent, thread) in answering.decode((String, String).self) { replies[ExactID(parent), default: []].append(thread) }
        return ImportThreading(records, storedThread: { threads[ExactID($0)] }, storedReplies: { replies[ExactID($0)] ?? [] })
    }

    /// Stores what `threading` planned: moves the stored conversations that join others, inserts the
    /// new rows (placed by `placement`), and notes both in `write`.
    static func store(_ threading: ImportThreading, order: MailWrite.Order, placement: (ImportRecord) -> (folder: Folder, read: Bool),
                      _ write: inout MailWrite, _ connection: PostgresConnection, logger: Logger) async throws {
        var rethreads: [MailWrite.Rethread] = []
        if !threading.moves.isEmpty {
            let olds = threading.moves.map(\.old), news = threading.moves.map(\.new)
            var members: [String: [(uid: String, folder: Folder)]] = [:]
            let rows = try await connection.query("""
                SELECT thread_id, uid, folder FROM mail_message WHERE account = \(write.account) AND thread_id = ANY(\(olds))
                ORDER BY date_ms, uid
                """, logger: logger)
            for try await (thread, uid, folder) in rows.decode((String, String, String).self) {
                members[thread, default: []].append((uid, Folder(rawValue: folder) ?? .inbox))
            }
            try await connection.query("""
                UPDATE mail_message m SET thread_id = v.new_thread FROM unnest(\(olds), \(news)) AS v(old_thread, new_thread)
                WHERE m.account = \(write.account) AND m.thread_id = v.old_thread
                """, logger: logger)
            rethreads = threading.moves.map { MailWrite.Rethread(old: $0.old, new: $0.new, members: members[$0.old] ?? []) }
        }
        let rows = write.rows(threading, placement: placement)
        try await insert(rows, connection, logger: logger)
        write.stored(rows, rethreads: rethreads, order: order)
    }

    /// Ends a write: rebuilds the conversations it touched, then appends its change records (last:
    /// the change log's head stays locked until the commit).
    static func finish(_ write: MailWrite, _ connection: PostgresConnection, logger: Logger) async throws {
        try await refresh(write.touched, account: write.account, sequence: write.sequence, connection, logger: logger)
        try await PostgresChangeLog.record(
            connection, write.changes.map { PostgresChange(domain: write.scope, itemID: $0.uid, kind: $0.kind) }, logger: logger)
    }

    /// Rebuilds the listing rows of `groups` (all of `account`) by ``ConversationRefresh``, stamped with
    /// `sequence`, and moves the folder counts by the difference.
    static func refresh(_ groups: Set<GroupKey>, account: String, sequence: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        guard !groups.isEmpty else { return }
        let keys = Array(groups)
        let folders = keys.map(\.folder.rawValue), threads = keys.map(\.threadId)
        var old: [GroupKey: (total: Int, unread: Int)] = [:]
        let rows = try await connection.query("""
            SELECT folder, thread_id, message_count, unread_count FROM mail_conversation
            WHERE account = \(account) AND (folder, thread_id) IN (SELECT * FROM unnest(\(folders), \(threads)))
            """, logger: logger)
        for try await (folder, thread, total, unread) in rows.decode((String, String, Int64, Int64).self) {
            old[GroupKey(account: account, folder: Folder(rawValue: folder) ?? .inbox, threadId: thread)] = (Int(total), Int(unread))
        }
        var messages: [GroupKey: [MailRecord]] = [:]
        for record in try await records(connection, """
            SELECT \(unescaped: recordColumns) FROM mail_message
            WHERE account = \(account) AND (folder, thread_id) IN (SELECT * FROM unnest(\(folders), \(threads)))
            """, logger: logger) {
            messages[GroupKey(account: account, folder: record.folder, threadId: record.threadId), default: []].append(record)
        }
        let refreshes = keys.map { ConversationRefresh($0, old: old[$0], records: messages[$0] ?? []) }
        let emptied = refreshes.filter { $0.summary == nil }.map(\.group)
        if !emptied.isEmpty {
            try await connection.query("""
                DELETE FROM mail_conversation
                WHERE account = \(account) AND (folder, thread_id) IN (SELECT * FROM unnest(\(emptied.map(\.folder.rawValue)), \(emptied.map(\.threadId))))
                """, logger: logger)
        }
        try await writeSummaries(refreshes.compactMap { refresh in refresh.summary.map { (refresh.group, $0) } }, sequence: sequence, connection, logger: logger)
        var counts: [Folder: (total: Int, unread: Int)] = [:]
        for refresh in refreshes where refresh.movesCounts {
            counts[refresh.group.folder, default: (0, 0)].total += refresh.total
            counts[refresh.group.folder, default: (0, 0)].unread += refresh.unread
        }
        let moved = counts.filter { $0.value.total != 0 || $0.value.unread != 0 }
        guard !moved.isEmpty else { return }
        try await connection.query("""
            INSERT INTO mail_folder_count(account, folder, total, unread)
            SELECT \(account), f, t, u FROM unnest(\(moved.map(\.key.rawValue)), \(moved.map { Int64($0.value.total) }), \(moved.map { Int64($0.value.unread) })) AS v(f, t, u)
            ON CONFLICT (account, folder) DO UPDATE
            SET total = mail_folder_count.total + excluded.total, unread = mail_folder_count.unread + excluded.unread
            """, logger: logger)
    }

    /// Writes listing rows (replacing any), a batch per statement.
    static func writeSummaries(_ rows: [(group: GroupKey, summary: ConversationSummary)], sequence: Int64,
                               _ connection: PostgresConnection, logger: Logger) async throws {
        let batch = 1_000
        for start in stride(from: 0, to: rows.count, by: batch) {
            let part = rows[start..<min(start + batch, rows.count)]
            let conversations = part.map(\.summary.conversation)
            try await connection.query("""
                INSERT INTO mail_conversation(account, folder, thread_id, latest_date, latest_uid, latest_from,
                    latest_snippet, subject, participants, message_count, unread_count, updated_seq)
                SELECT a, f, t, d, lu, lf, ls, s, p, mc, uc, \(sequence)
                FROM unnest(\(part.map(\.group.account)), \(part.map(\.group.folder.rawValue)), \(part.map(\.group.threadId)),
                            \(part.map(\.summary.latestTime)), \(conversations.map(\.latest.uid)), \(conversations.map(\.latest.from)),
                            \(conversations.map(\.latest.snippet)), \(conversations.map(\.subject)),
                            \(conversations.map { $0.participants.joined(separator: "\n") }),
                            \(conversations.map { Int64($0.messageCount) }), \(conversations.map { Int64($0.unreadCount) }))
                     AS v(a, f, t, d, lu, lf, ls, s, p, mc, uc)
                ON CONFLICT (account, folder, thread_id) DO UPDATE SET
                    latest_date = excluded.latest_date, latest_uid = excluded.latest_uid, latest_from = excluded.latest_from,
                    latest_snippet = excluded.latest_snippet, subject = excluded.subject, participants = excluded.participants,
                    message_count = excluded.message_count, unread_count = excluded.unread_count, updated_seq = excluded.updated_seq
                """, logger: logger)
        }
    }
}
