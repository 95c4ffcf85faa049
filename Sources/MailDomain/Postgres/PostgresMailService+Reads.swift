import Jansson
import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// The listing and search queries.
extension PostgresMailService {
    public func conversations(account: String, folder: Folder, unreadOnly: Bool, page: PageRequest) async throws -> Page<Conversation> {
        let list = ConversationOrder.listID(account: account, folder: folder, unreadOnly: unreadOnly)
        // One snapshot for the counter and both queries (a write committing between them would
        // otherwise hide its conversations from a first page); a bad cursor is the client's error.
        let answer: Result<Page<Conversation>, JSONFieldError> = try await store.write { [self] connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: self.logger)
            let current = try await Self.counter(connection, "sequence", logger: self.logger)
            let position: ConversationOrder.Position
            do throws(JSONFieldError) {
                position = try ConversationOrder.position(page.cursor, list: list, current: current)
            } catch {
                return .failure(error)
            }
            var candidates = try await self.listed(account: account, folder: folder, unreadOnly: unreadOnly, position: position,
                                                   limit: page.limit, connection)
            if position.snapshot < current {
                candidates += try await self.changed(account: account, folder: folder, unreadOnly: unreadOnly, position: position, connection)
            }
            return .success(ConversationOrder.page(candidates, limit: page.limit, list: list, snapshot: position.snapshot))
        }
        return try answer.get()
    }

    /// Conversations unchanged since the snapshot, after the cursor: straight off the order index.
    private func listed(account: String, folder: Folder, unreadOnly: Bool, position: ConversationOrder.Position, limit: Int,
                        _ connection: PostgresConnection) async throws -> [ConversationOrder.Placed] {
        let after = position.after
        let rows = try await connection.query("""
            SELECT \(unescaped: Self.conversationColumns) FROM mail_conversation
            WHERE account = \(account) AND folder = \(folder.rawValue) \(unescaped: unreadOnly ? "AND unread_count > 0" : "")
              AND (\(after == nil) OR (latest_date, thread_id) < (\(after?.time ?? 0), \(after?.threadId ?? "")))
              AND updated_seq <= \(position.snapshot)
            ORDER BY latest_date DESC, thread_id DESC LIMIT \(Int64(limit) + 1)
            """, logger: logger)
        var placed: [ConversationOrder.Placed] = []
        for try await row in rows {
            let (conversation, time) = try Self.conversation(row)
            placed.append(ConversationOrder.Placed(conversation: conversation, key: .init(time: time, threadId: conversation.threadId)))
        }
        return placed
    }

    /// Conversations changed since the snapshot, each placed by its latest message then, or left out
    /// when it had none in the folder then; one statement.
    private func changed(account: String, folder: Folder, unreadOnly: Bool, position: ConversationOrder.Position,
                         _ connection: PostgresConnection) async throws -> [ConversationOrder.Placed] {
        let rows = try await connection.query("""
            SELECT \(unescaped: Self.conversationColumns), snap.latest FROM mail_conversation c
            CROSS JOIN LATERAL (
                SELECT max(m.date_ms) AS latest FROM mail_message m
                WHERE m.account = c.account AND m.thread_id = c.thread_id AND m.folder = c.folder AND m.folder_seq <= \(position.snapshot)
            ) snap
            WHERE c.account = \(account) AND c.folder = \(folder.rawValue) AND c.updated_seq > \(position.snapshot)
              \(unescaped: unreadOnly ? "AND c.unread_count > 0" : "") AND snap.latest IS NOT NULL
            """, logger: logger)
        var placed: [ConversationOrder.Placed] = []
        for try await row in rows {
            let (conversation, _) = try Self.conversation(row)
            let key = ConversationOrder.Key(time: try Array(row)[9].decode(Int64.self), threadId: conversation.threadId)
            if let after = position.after, !(after < key) { continue }
            placed.append(ConversationOrder.Placed(conversation: conversation, key: key))
        }
        return placed
    }

    static let conversationColumns = """
        thread_id, subject, participants, message_count, unread_count, latest_uid, latest_from, latest_snippet, latest_date
        """

    static func conversation(_ row: PostgresRow) throws -> (Conversation, latestTime: Int64) {
        let (threadId, subject, participants, messages, unread, uid, from, snippet, latestTime) =
            try row.decode((String, String, String, Int64, Int64, String, String, String, Int64).self)
        let conversation = Conversation(
            threadId: threadId, subject: subject, participants: Conversation.participants(stored: participants), messageCount: Int(messages),
            unreadCount: Int(unread), latest: LatestMessage(uid: uid, from: from, snippet: snippet, date: Timestamp.format(latestTime)))
        return (conversation, latestTime)
    }

    public func search(account: String, query text: String, page: PageRequest) async throws -> Page<SearchHit> {
        let query = SearchQuery(text)
        let after = try query.after(page.cursor, account: account)
        guard !query.isEmpty else { return Page(items: [], nextCursor: nil) }
        // Every term in some column (the trigram indexes), scored by the columns it is in.
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        var score: [String] = []
        var matches: [String] = []
        for term in query.terms.indices {
            let pattern = bind(query.likePattern(term))
            let columns = SearchQuery.columns.map { (SearchQuery.foldedColumn($0.name), $0.weight) }
            score += columns.map { "(CASE WHEN \($0.0) LIKE \(pattern) THEN \($0.1) ELSE 0 END)" }
            matches.append("(" + columns.map { "\($0.0) LIKE \(pattern)" }.joined(separator: " OR ") + ")")
        }
        var sql = """
            SELECT * FROM (
                SELECT (\(score.joined(separator: " + ")))::bigint AS score, \(Self.recordColumns) FROM mail_message
                WHERE account = \(bind(account)) AND \(matches.joined(separator: " AND "))
            ) hits
            """
        if let after {
            sql += " WHERE (score, date_ms, uid) < (\(bind(Int64(after.score))), \(bind(after.time)), \(bind(after.uid)))"
        }
        sql += " ORDER BY score DESC, date_ms DESC, uid DESC LIMIT \(bind(Int64(page.limit) + 1))"
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        let hits = try await store.read { [self] connection in
            var hits: [(hit: SearchHit, key: SearchQuery.Key)] = []
            for try await row in try await connection.query(statement, logger: logger) {
                let score = Int(try row.decode(Int64.self))
                let record = try Self.record(row, offset: 1)
                hits.append((SearchHit(record, score: score), SearchQuery.Key(score: score, time: record.time, uid: record.uid)))
            }
            return hits
        }
        return query.page(hits, limit: page.limit, account: account)
    }
}
