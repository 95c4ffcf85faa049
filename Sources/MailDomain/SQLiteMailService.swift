import GRDB
import SwitchboardCore
import SwitchboardStorage

/// Mail in SQLite (GRDB): messages, a listing row per conversation per folder, folder counts and
/// an FTS5 index, each write with its change records in one transaction.
///
/// ```swift
/// let database = try AppDatabase(path: ":memory:", migrations: SQLiteMailService.migrations)
/// try await database.writer.write { try SQLiteMailService.seed($0, clock: SystemClock()) }
/// let mail = SQLiteMailService(database: database)
/// let first = try await mail.conversations(account: DemoAccount.email, folder: .inbox, unreadOnly: false, page: PageRequest())
/// ```
public struct SQLiteMailService: MailService {
    public let database: AppDatabase
    private let clock: any WallClock

    public init(database: AppDatabase, clock: any WallClock = SystemClock()) {
        self.database = database
        self.clock = clock
    }

    public func login(email: String) async throws -> LoginOutcome {
        let known: Account? = try database.read { db in
            try Row.fetchOne(db, sql: "SELECT email, name FROM mail_account WHERE email = ?", arguments: [email])
                .map { Account(email: $0[0], name: $0[1]) }
        }
        // An existing account signs in without a write, so a read-only database still serves it.
        if let known { return LoginOutcome(account: known, created: false) }
        return try await database.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT email, name FROM mail_account WHERE email = ?", arguments: [email]) {
                return LoginOutcome(account: Account(email: row[0], name: row[1]), created: false)
            }
            try db.execute(sql: "INSERT INTO mail_account(email, name) VALUES (?, NULL)", arguments: [email])
            return LoginOutcome(account: Account(email: email), created: true)
        }
    }

    public func folders(account: String) async throws -> [FolderSummary] {
        try database.read { db in
            var counts: [String: (Int, Int)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT folder, total, unread FROM mail_folder_count WHERE account = ?", arguments: [account]) {
                counts[row[0]] = (row[1], row[2])
            }
            return Folder.allCases.map { folder in
                let (total, unread) = counts[folder.rawValue] ?? (0, 0)
                return FolderSummary(name: folder, total: total, unread: unread)
            }
        }
    }

    public func thread(account: String, threadId: String, page: PageRequest) async throws -> ThreadDetail? {
        let paging = try ThreadPage(account: account, threadId: threadId, page: page)
        return try database.read { db -> ThreadDetail? in
            // The root: the message whose uid is the thread's, else the first.
            let rootSubject = try String.fetchOne(db.cachedStatement(
                sql: "SELECT subject FROM mail_message WHERE account = ? AND thread_id = ? ORDER BY uid <> ?, date_ms, uid LIMIT 1"),
                arguments: [account, threadId, threadId])
            guard let rootSubject else { return nil }
            let after = paging.after
            // Ties in time go by row id, the order the messages were stored in (``ThreadPage``).
            let rows = try Row.fetchCursor(db.cachedStatement(sql: """
                SELECT id, \(Self.recordColumns) FROM mail_message WHERE account = ? AND thread_id = ? AND (date_ms, id) > (?, ?)
                ORDER BY date_ms, id LIMIT ?
                """), arguments: [account, threadId, after?.time ?? Int64.min, after?.arrival ?? Int64.min, paging.limit + 1])
            // Read row by row: the page stops at its byte budget without loading the rest.
            var collector = ThreadPage.Collector(paging)
            while let row = try rows.next(), collector.offer(Self.record(row, offset: 1), arrival: row[0]) {}
            return ThreadDetail(threadId: threadId, subject: Subject.base(rootSubject), messages: collector.records.map(\.message),
                                nextCursor: collector.nextCursor)
        }
    }

    public func message(account: String, uid: String) async throws -> Message? {
        try database.read { db in try Self.fetchRecord(db, account: account, uid: uid)?.message }
    }

    public func send(account: String, _ message: MailDraft) async throws -> Committed<Message> {
        let now = clock.now()
        return try await database.write { db in
            if let parent = message.inReplyTo, try Self.fetchRecord(db, account: account, uid: parent) == nil {
                throw ServiceError.notFound(kind: "message", id: parent)
            }
            var sent = SentUID(counter: try Self.counter(db, "sent"))
            while try Self.storedThread(db, account: account, uid: sent.uid) != nil { sent.skip() }
            try Self.setCounter(db, "sent", sent.number)
            var write = MailWrite(account: account, sequence: try Self.nextSequence(db))
            let threading = try Self.threading([ImportRecord(uid: sent.uid, message: message, time: now)], account: account,
                                               repliesOrder: "date_ms, uid", db)
            try Self.store(threading, order: .messagesFirst, placement: { _ in (.sent, true) }, &write, db)
            try Self.finish(write, db)
            guard let stored = try Self.fetchRecord(db, account: account, uid: sent.uid) else {
                throw ServiceError.notFound(kind: "message", id: sent.uid)
            }
            return Committed(stored.message, state: try ChangeLog.state(db, domain: mailDomain))
        }
    }

    public func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]> {
        try await update(account: account, uids: uids, where: { $0.read != read }) { id, record, write, db in
            try db.cachedStatement(sql: "UPDATE mail_message SET read = ? WHERE id = ?").execute(arguments: [read, id])
            write.flagged(record)
        }
    }

    public func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]> {
        try await update(account: account, uids: uids, where: { $0.folder != folder }) { id, record, write, db in
            try db.cachedStatement(sql: "UPDATE mail_message SET folder = ?, folder_seq = ? WHERE id = ?")
                .execute(arguments: [folder.rawValue, write.sequence, id])
            write.moved(record, to: folder)
        }
    }

    public func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome {
        try await database.write { db in
            var outcome = try Self.importBatch(account: account, records, db)
            outcome.state = try ChangeLog.state(db, domain: mailDomain)
            return outcome
        }
    }

    public func state() async throws -> String {
        try database.read { db in try ChangeLog.state(db, domain: mailDomain) }
    }

    public func changes(account: String, since sinceState: String, limit: Int) async throws -> ChangeSet {
        try database.read { db in
            try ChangeLog.changes(db, domain: mailDomain, scope: mailScope(account), since: sinceState, limit: limit)
        }
    }

    /// Changes the messages `uids` names (every uid must exist) for which `needed` holds, one row at a
    /// time by `apply`, which also notes the change in the write.
    private func update(account: String, uids: [String], where needed: @escaping @Sendable (MailRecord) -> Bool,
                        _ apply: @escaping @Sendable (Int64, MailRecord, inout MailWrite, Database) throws -> Void) async throws -> Committed<[String]> {
        try await database.write { db in
            let changed = try Self.rowIDs(of: uids, account: account, db).filter { needed($0.record) }
            guard !changed.isEmpty else { return Committed([], state: try ChangeLog.state(db, domain: mailDomain)) }
            var write = MailWrite(account: account, sequence: try Self.nextSequence(db))
            for (id, record) in changed { try apply(id, record, &write, db) }
            try Self.finish(write, db)
            return Committed(changed.map(\.record.uid), state: try ChangeLog.state(db, domain: mailDomain))
        }
    }
}
