import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// Mail in PostgreSQL, for a team's shared database: the tables, listing rows, counters and change
/// records of ``SQLiteMailService``, kept by the same rules (``MailWrite``, ``ConversationRefresh``,
/// ``ImportThreading``, ``SentUID``), so both answer alike for the same data.
///
/// Every write is one transaction on ``PostgresStore``: it first locks the mail sequence row, so mail
/// writers of every host take turns as SQLite's writers do; its change records come last (the change
/// log's head stays locked until the commit); ``ChangeSignal`` is posted after the commit. Search
/// matches folded text columns (``SearchTokens``) through trigram indexes.
///
/// ```swift
/// let store = try await PostgresStore.open(settings, migrations: [PostgresMailService.migrations], logger: logger)
/// try await store.write { try await PostgresMailService.seed($0, clock: SystemClock(), logger: logger) }
/// let mail = PostgresMailService(store: store)
/// ```
public final class PostgresMailService: MailService {
    let store: PostgresStore
    private let clock: any WallClock
    private let signal: ChangeSignal

    /// - Parameter signal: posted after each committed write.
    public init(store: PostgresStore, clock: any WallClock = SystemClock(), signal: ChangeSignal = ChangeSignal()) {
        self.store = store
        self.clock = clock
        self.signal = signal
    }

    var logger: Logger { store.logger }

    public func login(email: String) async throws -> LoginOutcome {
        if let known = try await store.read({ [logger] in try await Self.account($0, email: email, logger: logger) }) {
            return LoginOutcome(account: known, created: false)
        }
        return try await write { connection in
            let rows = try await connection.query(
                "INSERT INTO mail_account(email, name) VALUES (\(email), NULL) ON CONFLICT (email) DO NOTHING RETURNING email",
                logger: self.logger)
            for try await _ in rows.decode(String.self) { return LoginOutcome(account: Account(email: email), created: true) }
            let known = try await Self.account(connection, email: email, logger: self.logger)
            return LoginOutcome(account: known ?? Account(email: email), created: false)
        }
    }

    public func folders(account: String) async throws -> [FolderSummary] {
        let counts = try await store.read { [self] connection in
            var counts: [String: (Int, Int)] = [:]
            let rows = try await connection.query(
                "SELECT folder, total, unread FROM mail_folder_count WHERE account = \(account)", logger: logger)
            for try await (folder, total, unread) in rows.decode((String, Int64, Int64).self) { counts[folder] = (Int(total), Int(unread)) }
            return counts
        }
        return Folder.allCases.map { folder in
            let (total, unread) = counts[folder.rawValue] ?? (0, 0)
            return FolderSummary(name: folder, total: total, unread: unread)
        }
    }

    public func thread(account: String, threadId: String, page: PageRequest) async throws -> ThreadDetail? {
        let paging = try ThreadPage(account: account, threadId: threadId, page: page)
        let after = paging.after
        return try await store.read { [logger] connection -> ThreadDetail? in
            // The root: the message whose uid is the thread's, else the first.
            let roots = try await connection.query("""
                SELECT subject FROM mail_message WHERE account = \(account) AND thread_id = \(threadId)
                ORDER BY uid <> \(threadId), date_ms, uid LIMIT 1
                """, logger: logger)
            var rootSubject: String?
            for try await row in roots { rootSubject = try row.decode(String.self) }
            guard let rootSubject else { return nil }
            // Ties in time go by id, the order the messages were stored in (``ThreadPage``).
            let rows = try await connection.query("""
                SELECT id, \(unescaped: Self.recordColumns) FROM mail_message
                WHERE account = \(account) AND thread_id = \(threadId) AND (date_ms, id) > (\(after?.time ?? Int64.min), \(after?.arrival ?? Int64.min))
                ORDER BY date_ms, id LIMIT \(paging.limit + 1)
                """, logger: logger)
            var collector = ThreadPage.Collector(paging)
            for try await row in rows {
                guard collector.offer(try Self.record(row, offset: 1), arrival: try row.decode(Int64.self)) else { break }
            }
            return ThreadDetail(threadId: threadId, subject: Subject.base(rootSubject), messages: collector.records.map(\.message),
                                nextCursor: collector.nextCursor)
        }
    }

    public func message(account: String, uid: String) async throws -> Message? {
        try await store.read { [logger] in try await Self.record($0, account: account, uid: uid, logger: logger)?.message }
    }

    public func send(account: String, _ message: MailDraft) async throws -> Committed<Message> {
        let now = clock.now()
        return try await write { connection in
            let logger = self.logger
            let current = try await Self.lockSequence(connection, logger: logger)
            if let parent = message.inReplyTo, try await Self.record(connection, account: account, uid: parent, logger: logger) == nil {
                throw ServiceError.notFound(kind: "message", id: parent)
            }
            var sent = SentUID(counter: try await Self.counter(connection, "sent", logger: logger))
            while try await Self.record(connection, account: account, uid: sent.uid, logger: logger) != nil { sent.skip() }
            try await Self.setCounter(connection, "sent", sent.number, logger: logger)
            var write = MailWrite(account: account, sequence: current + 1)
            try await Self.setCounter(connection, "sequence", write.sequence, logger: logger)
            let threading = try await Self.threading([ImportRecord(uid: sent.uid, message: message, time: now)], account: account,
                                                     repliesOrder: .chronological, connection, logger: logger)
            try await Self.store(threading, order: .messagesFirst, placement: { _ in (.sent, true) }, &write, connection, logger: logger)
            try await Self.finish(write, connection, logger: logger)
            guard let stored = try await Self.record(connection, account: account, uid: sent.uid, logger: logger) else {
                throw ServiceError.notFound(kind: "message", id: sent.uid)
            }
            return Committed(stored.message, state: try await PostgresChangeLog.state(connection, domain: mailDomain, logger: logger))
        }
    }

    public func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]> {
        try await update(account: account, uids: uids, where: { $0.read != read }, log: { $0.flagged($1) }) { ids, _, connection in
            try await connection.query("UPDATE mail_message SET read = \(read) WHERE id = ANY(\(ids))", logger: self.logger)
        }
    }

    public func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]> {
        try await update(account: account, uids: uids, where: { $0.folder != folder }, log: { $0.moved($1, to: folder) }) { ids, sequence, connection in
            try await connection.query(
                "UPDATE mail_message SET folder = \(folder.rawValue), folder_seq = \(sequence) WHERE id = ANY(\(ids))", logger: self.logger)
        }
    }

    public func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome {
        try await write { connection in
            let logger = self.logger
            let current = try await Self.lockSequence(connection, logger: logger)
            let threading = try await Self.threading(records, account: account, repliesOrder: .stored, connection, logger: logger)
            var outcome = ImportOutcome(imported: threading.entries.map(\.record.uid), skipped: threading.skipped)
            if !threading.entries.isEmpty {
                var write = MailWrite(account: account, sequence: current + 1)
                try await Self.setCounter(connection, "sequence", write.sequence, logger: logger)
                try await Self.store(threading, order: .rethreadsFirst, placement: { MailRecord.placement(from: $0.message.from, account: account) },
                                     &write, connection, logger: logger)
                try await Self.finish(write, connection, logger: logger)
            }
            outcome.state = try await PostgresChangeLog.state(connection, domain: mailDomain, logger: logger)
            return outcome
        }
    }

    public func state() async throws -> String {
        try await store.read { [logger] in try await PostgresChangeLog.state($0, domain: mailDomain, logger: logger) }
    }

    public func changes(account: String, since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await store.read { [logger] in
            try await PostgresChangeLog.changes($0, domain: mailDomain, scope: mailScope(account), since: sinceState, limit: limit, logger: logger)
        }
    }

    /// A write: one transaction, the signal posted once it committed.
    func write<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        let result = try await store.write(body)
        signal.post()
        return result
    }

    /// Sets a flag or a folder on the messages `uids` names (every uid must exist, else
    /// ``ServiceError/notFound(kind:id:)`` for the first unknown one) where `needed` holds: `apply`
    /// changes their rows (by id, in the write numbered `sequence`), `log` records each change.
    private func update(account: String, uids: [String], where needed: @escaping @Sendable (MailRecord) -> Bool, log: @escaping @Sendable (inout MailWrite, MailRecord) -> Void,
                        _ apply: @escaping @Sendable (_ ids: [Int64], _ sequence: Int64, PostgresConnection) async throws -> Void) async throws -> Committed<[String]> {
        try await write { connection in
            let logger = self.logger
            let current = try await Self.lockSequence(connection, logger: logger)
            let changed = try await Self.rows(of: uids, account: account, connection, logger: logger).filter { needed($0.record) }
            if !changed.isEmpty {
                var write = MailWrite(account: account, sequence: current + 1)
                try await Self.setCounter(connection, "sequence", write.sequence, logger: logger)
                try await apply(changed.map(\.id), write.sequence, connection)
                for (_, record) in changed { log(&write, record) }
                try await Self.finish(write, connection, logger: logger)
            }
            return Committed(changed.map(\.record.uid), state: try await PostgresChangeLog.state(connection, domain: mailDomain, logger: logger))
        }
    }
}
