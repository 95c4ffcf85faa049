import GRDB
import SwitchboardCore
import SwitchboardStorage

/// The listing and search queries.
extension SQLiteMailService {
    public func conversations(account: String, folder: Folder, unreadOnly: Bool, page: PageRequest) async throws -> Page<Conversation> {
        try database.read { db in
            let list = ConversationOrder.listID(account: account, folder: folder, unreadOnly: unreadOnly)
            let current = try Self.counter(db, "sequence")
            let position = try ConversationOrder.position(page.cursor, list: list, current: current)
            let unread = unreadOnly ? " AND unread_count > 0" : ""
            // Conversations unchanged since the snapshot: straight off the (partial) order index.
            var sql = "SELECT \(Self.conversationColumns) FROM mail_conversation WHERE account = ? AND folder = ?\(unread)"
            var arguments: StatementArguments = [account, folder.rawValue]
            if let after = position.after {
                sql += " AND (latest_date, thread_id) < (?, ?)"
                arguments += [after.time, after.threadId]
            }
            // `+updated_seq`: a filter, not an index choice; the order index is what makes this fast.
            sql += " AND +updated_seq <= ? ORDER BY latest_date DESC, thread_id DESC LIMIT ?"
            arguments += [position.snapshot, page.limit + 1]
            var candidates = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                let (conversation, time) = Self.conversation(row)
                return ConversationOrder.Placed(conversation: conversation, key: .init(time: time, threadId: conversation.threadId))
            }
            guard position.snapshot < current else {
                return ConversationOrder.page(candidates, limit: page.limit, list: list, snapshot: position.snapshot)
            }
            // Conversations changed since: placed as they stood at the snapshot, or left out.
            let changed = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(Self.conversationColumns) FROM mail_conversation WHERE account = ? AND folder = ? AND updated_seq > ?\(unread)"),
                arguments: [account, folder.rawValue, position.snapshot])
            for row in changed {
                let (conversation, _) = Self.conversation(row)
                guard let then = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT max(date_ms) FROM mail_message WHERE account = ? AND thread_id = ? AND folder = ? AND folder_seq <= ?"),
                    arguments: [account, conversation.threadId, folder.rawValue, position.snapshot]) else { continue }
                let key = ConversationOrder.Key(time: then, threadId: conversation.threadId)
                if let after = position.after, !(after < key) { continue }
                candidates.append(ConversationOrder.Placed(conversation: conversation, key: key))
            }
            return ConversationOrder.page(candidates, limit: page.limit, list: list, snapshot: position.snapshot)
        }
    }

    public func search(account: String, query text: String, page: PageRequest) async throws -> Page<SearchHit> {
        let query = SearchQuery(text)
        let after = try query.after(page.cursor, account: account)
        guard !query.isEmpty else { return Page(items: [], nextCursor: nil) }
        // The score: for each term and column, the column's weight when the term is in it.
        var parts: [String] = []
        var arguments: StatementArguments = []
        for term in query.terms.indices {
            for column in SearchQuery.columns {
                parts.append("(CASE WHEN id IN (SELECT rowid FROM mail_search WHERE mail_search MATCH ?) THEN \(column.weight) ELSE 0 END)")
                arguments += [query.matchExpression(term: term, column: column.name)]
            }
        }
        var sql = """
            SELECT * FROM (
                SELECT \(parts.joined(separator: " + ")) AS score, \(Self.recordColumns) FROM mail_message
                WHERE id IN (SELECT rowid FROM mail_search WHERE mail_search MATCH ?) AND account = ?
            )
            """
        arguments += [query.matchExpression, account]
        if let after {
            sql += " WHERE (score, date_ms, uid) < (?, ?, ?)"
            arguments += [after.score, after.time, after.uid]
        }
        sql += " ORDER BY score DESC, date_ms DESC, uid DESC LIMIT ?"
        arguments += [page.limit + 1]
        let hits = try database.read { [sql, arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let score: Int = row[0]
                let record = Self.record(row, offset: 1)
                return (hit: SearchHit(record, score: score), key: SearchQuery.Key(score: score, time: record.time, uid: record.uid))
            }
        }
        return query.page(hits, limit: page.limit, account: account)
    }
}
