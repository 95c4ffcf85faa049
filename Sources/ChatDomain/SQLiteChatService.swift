import GRDB
import SwitchboardCore
import SwitchboardStorage

/// Chat in SQLite (GRDB), shared by every process on the database file: a message sent by one is
/// read by another's ``messages(roomId:after:limit:)``, in the order the log gives them.
///
/// ```swift
/// let database = try AppDatabase(path: ":memory:", migrations: SQLiteChatService.migrations)
/// try await database.writer.write { try SQLiteChatService.seed($0, clock: SystemClock()) }
/// let chat = SQLiteChatService(database: database)
/// let rooms = try await chat.rooms(user: DemoChat.me.id)
/// ```
public struct SQLiteChatService: ChatService {
    public let database: AppDatabase
    public let signal: ChangeSignal
    private let clock: any WallClock

    public init(database: AppDatabase, clock: any WallClock = SystemClock(), signal: ChangeSignal = ChangeSignal()) {
        self.database = database
        self.clock = clock
        self.signal = signal
    }

    public func users(except user: String, page: PageRequest) async throws -> Page<ChatUser> {
        let after = try ChatRules.usersAfter(page.cursor)
        return try read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.userColumns) FROM chat_user WHERE id != ? AND (login, id) > (?, ?) ORDER BY login, id LIMIT ?
                """), arguments: [user, after?.login ?? "", after?.id ?? "", page.limit + 1])
            return ChatRules.usersPage(rows.map(Self.user), limit: page.limit)
        }
    }

    public func user(id: String) async throws -> ChatUser? {
        try read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.userColumns) FROM chat_user WHERE id = ?"), arguments: [id]).map(Self.user)
        }
    }

    public func rooms(user: String) async throws -> [ChatRoom] {
        try read { db in
            let ids = try String.fetchAll(db.cachedStatement(sql: "SELECT room_id FROM chat_member WHERE user_id = ?"), arguments: [user])
            return try ids.compactMap { try Self.view(db, roomId: $0, user: user) }.sorted(by: ChatRules.latestFirst)
        }
    }

    public func room(user: String, id: String) async throws -> ChatRoom? {
        try read { db in try Self.view(db, roomId: id, user: user) }
    }

    public func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom> {
        let opened = try await write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM chat_user WHERE id = ?", arguments: [other]) != nil else {
                throw ServiceError.notFound(kind: "user", id: other)
            }
            let record = ChatRoomRecord.direct(user, other)
            let created = try Self.insertRoom(record, db)
            if created { try ChangeLog.record(db, domain: chatDomain, itemID: record.id, kind: .created) }
            guard let view = try Self.view(db, roomId: record.id, user: user) else { throw ServiceError.notFound(kind: "room", id: record.id) }
            return Committed(OpenedRoom(room: view, created: created), state: try ChangeLog.state(db, domain: chatDomain))
        }
        if opened.value.created { signal.post() }
        return opened
    }

    public func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage> {
        let before = try ChatRules.historyBefore(page.cursor, roomId: roomId)
        return try read { db in
            guard try Self.view(db, roomId: roomId, user: user) != nil else { throw ServiceError.notFound(kind: "room", id: roomId) }
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.messageColumns) FROM chat_message WHERE room_id = ? AND position < ? ORDER BY position DESC LIMIT ?
                """), arguments: [roomId, before ?? Int64.max, page.limit + 1])
            return ChatRules.historyPage(rows.map(Self.message), roomId: roomId, limit: page.limit)
        }
    }

    public func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom> {
        let (committed, changed) = try await write { db in
            guard try Self.view(db, roomId: roomId, user: user) != nil else { throw ServiceError.notFound(kind: "room", id: roomId) }
            guard let position = StoredChatMessage.position(of: messageId), try Self.fetchMessage(db, position: position)?.roomId.hasSameBytes(as: roomId) == true else {
                throw ServiceError.notFound(kind: "message", id: messageId)
            }
            try db.execute(sql: "UPDATE chat_member SET read_up_to = ? WHERE room_id = ? AND user_id = ? AND read_up_to < ?",
                           arguments: [position, roomId, user, position])
            let changed = db.changesCount > 0
            if changed { try ChangeLog.record(db, domain: chatDomain, itemID: roomId, kind: .updated) }
            guard let view = try Self.view(db, roomId: roomId, user: user) else { throw ServiceError.notFound(kind: "room", id: roomId) }
            return (Committed(view, state: try ChangeLog.state(db, domain: chatDomain)), changed)
        }
        if changed { signal.post() }
        return committed
    }

    public func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage? {
        try read { db in try Self.fetchSent(db, sender: sender, clientMessageId: clientMessageId)?.message }
    }

    public func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        let request = ChatSendRequest(sender: sender, roomId: roomId, text: text, clientMessageId: clientMessageId)
        guard let outcome = await send([request]).first else { throw ServiceError.notFound(kind: "room", id: roomId) }
        return try outcome.get()
    }

    /// One write transaction for the whole batch: a message that fails (not a member, a constraint)
    /// is rolled back alone and fails alone. A failure of the storage itself (the disk, a lock, a
    /// transaction SQLite rolled back) ends the transaction and fails every message of the batch;
    /// none is stored.
    ///
    /// A message is refused, if at all, before it writes, so the batch is first stored without
    /// savepoints (two statements less per message); when one fails after it began writing, that pass
    /// rolls back and the batch is stored again with each message in a savepoint of its own.
    public func send(_ batch: [ChatSendRequest]) async -> [Result<Committed<ChatMessage>, any Error>] {
        guard !batch.isEmpty else { return [] }
        let now = clock.now()
        do {
            let outcomes: [ChatSendOutcome]
            do {
                outcomes = try await write { [self] db in try batch.map { try storeWithoutSavepoint($0, sentAt: now, db) } }
            } catch is FailedMidWrite {
                outcomes = try await write { [self] db in try batch.map { try storeInSavepoint($0, sentAt: now, db) } }
            }
            return ChatSendOutcome.answers(outcomes, signal: signal)
        } catch {
            return batch.map { _ in .failure(error) }
        }
    }

    public func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck {
        do {
            let check = try database.readStatement { db in try Self.check(db, sender: sender, roomId: roomId, clientMessageId: clientMessageId) }
            return ChatSendCheck(state: check.state, stored: check.stored?.message, isMember: check.isMember)
        } catch let error as DatabaseError {
            throw failure(error)
        }
    }

    public func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch {
        try read { db in
            let latest = try Self.latestSequence(db)
            let since = try ChatRules.sequence(of: sinceState, latest: latest)
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.messageColumns) FROM chat_message WHERE room_id = ? AND log_sequence > ? ORDER BY log_sequence LIMIT ?
                """), arguments: [roomId, since, limit + 1])
            return ChatRules.batch(rows.map(Self.message), limit: limit, latest: latest)
        }
    }

    public func state() async throws -> String {
        try read { db in try ChangeLog.state(db, domain: chatDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try read { db in try ChangeLog.changes(db, domain: chatDomain, since: sinceState, limit: limit) }
    }

    /// Runs a read, on the calling thread (``AppDatabase/read(_:)``). A database error that is not
    /// about the storage (the file, the disk, a lock) is a service failure with a fresh debug id;
    /// storage errors name the file, as for writes.
    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw failure(error)
        }
    }

    /// Runs a write transaction (``AppDatabase/write(_:)``), errors as for ``read(_:)``.
    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await database.write(body)
        } catch let error as DatabaseError {
            throw failure(error)
        }
    }

    func failure(_ error: DatabaseError) -> any Error {
        let storage = AppDatabase.storageError(error, path: database.path)
        guard storage is DatabaseError else { return storage }
        return ServiceError.serviceFailure(debugId: DebugID.make(), cause: "SQLite: \(error)")
    }

    /// The change log's newest position, read through its state string.
    static func latestSequence(_ db: Database) throws -> Int64 {
        try ChangeTracking.sequence(of: try ChangeLog.state(db, domain: chatDomain), domain: chatDomain, oldest: 0, latest: .max)
    }
}
