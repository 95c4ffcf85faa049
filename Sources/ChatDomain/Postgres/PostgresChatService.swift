import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

/// Chat in PostgreSQL, shared by every host on the database: answers as ``SQLiteChatService`` does for
/// the same data (the same ids, orders, cursors and change records), with the rules both keep in
/// ``ChatRules``.
///
/// Reads that must agree with themselves (a room's view, messages after a state with the state to
/// continue from) are one statement, so one snapshot. Writes are one transaction each, their change
/// records last (``PostgresChangeLog``); ``signal`` is posted after the commit.
///
/// ```swift
/// let store = try await PostgresStore.open(settings, migrations: [PostgresChatService.migrations], logger: logger)
/// try await store.write { try await PostgresChatService.seed($0, clock: SystemClock(), logger: logger) }
/// let chat = PostgresChatService(store: store)
/// let rooms = try await chat.rooms(user: DemoChat.me.id)
/// ```
public final class PostgresChatService: ChatService {
    public let store: PostgresStore
    public let signal: ChangeSignal
    let clock: any WallClock

    public init(store: PostgresStore, clock: any WallClock = SystemClock(), signal: ChangeSignal = ChangeSignal()) {
        self.store = store
        self.clock = clock
        self.signal = signal
    }

    var logger: Logger { store.logger }

    public func users(except user: String, page: PageRequest) async throws -> Page<ChatUser> {
        let after = try ChatRules.usersAfter(page.cursor)
        return try await store.read { [self] connection in
            let users = try await Self.users(connection.query("""
                SELECT \(unescaped: Self.userColumns) FROM chat_user
                WHERE id <> \(user) AND (login, id) > (\(after?.login ?? ""), \(after?.id ?? ""))
                ORDER BY login, id LIMIT \(Self.fetchCount(page.limit))
                """, logger: logger))
            return ChatRules.usersPage(users, limit: page.limit)
        }
    }

    public func user(id: String) async throws -> ChatUser? {
        try await store.read { [self] connection in
            try await Self.users(connection.query("SELECT \(unescaped: Self.userColumns) FROM chat_user WHERE id = \(id)", logger: logger)).first
        }
    }

    public func rooms(user: String) async throws -> [ChatRoom] {
        try await store.read { [self] connection in
            try await Self.views(connection, user: user, logger: logger).sorted(by: ChatRules.latestFirst)
        }
    }

    public func room(user: String, id: String) async throws -> ChatRoom? {
        try await store.read { [self] connection in try await Self.view(connection, roomId: id, user: user, logger: logger) }
    }

    public func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom> {
        let record = ChatRoomRecord.direct(user, other)
        let opened = try await store.write { [self] connection in
            guard try await Self.users(connection.query("SELECT \(unescaped: Self.userColumns) FROM chat_user WHERE id = \(other)", logger: logger))
                .isEmpty == false else {
                throw ServiceError.notFound(kind: "user", id: other)
            }
            let created = try await Self.insertRoom(record, connection, logger: logger)
            guard let view = try await Self.view(connection, roomId: record.id, user: user, logger: logger) else {
                throw ServiceError.notFound(kind: "room", id: record.id)
            }
            let state = created
                ? ChangeTracking.state(domain: chatDomain, sequence: try await PostgresChangeLog.record(
                    connection, domain: chatDomain, itemID: record.id, kind: .created, logger: logger))
                : try await PostgresChangeLog.state(connection, domain: chatDomain, logger: logger)
            return Committed(OpenedRoom(room: view, created: created), state: state)
        }
        if opened.value.created { signal.post() }
        return opened
    }

    public func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage> {
        let before = try ChatRules.historyBefore(page.cursor, roomId: roomId)
        return try await store.read { [self] connection in
            // No row: not a member. One row of NULLs: a member of an empty room.
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.messageColumns("c")) FROM chat_member m
                LEFT JOIN LATERAL (
                    SELECT * FROM chat_message WHERE room_id = m.room_id AND position < \(before ?? Int64.max)
                    ORDER BY position DESC LIMIT \(Self.fetchCount(page.limit))
                ) c ON true
                WHERE m.room_id = \(roomId) AND m.user_id = \(user)
                ORDER BY c.position DESC
                """, logger: logger)
            var member = false
            var messages: [StoredChatMessage] = []
            for try await row in rows {
                member = true
                if let message = try Self.message(row.makeRandomAccess(), at: 0) { messages.append(message) }
            }
            guard member else { throw ServiceError.notFound(kind: "room", id: roomId) }
            return ChatRules.historyPage(messages, roomId: roomId, limit: page.limit)
        }
    }

    public func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom> {
        let (committed, changed) = try await store.write { [self] connection in
            guard try await Self.view(connection, roomId: roomId, user: user, logger: logger) != nil else {
                throw ServiceError.notFound(kind: "room", id: roomId)
            }
            guard let position = StoredChatMessage.position(of: messageId), try await Self.isMessage(position, in: roomId, connection, logger: logger) else {
                throw ServiceError.notFound(kind: "message", id: messageId)
            }
            var changed = false
            for try await _ in try await connection.query("""
                UPDATE chat_member SET read_up_to = \(position)
                WHERE room_id = \(roomId) AND user_id = \(user) AND read_up_to < \(position) RETURNING 1
                """, logger: logger).decode(Int32.self) {
                changed = true
            }
            guard let view = try await Self.view(connection, roomId: roomId, user: user, logger: logger) else {
                throw ServiceError.notFound(kind: "room", id: roomId)
            }
            let state = changed
                ? ChangeTracking.state(domain: chatDomain, sequence: try await PostgresChangeLog.record(
                    connection, domain: chatDomain, itemID: roomId, kind: .updated, logger: logger))
                : try await PostgresChangeLog.state(connection, domain: chatDomain, logger: logger)
            return (Committed(view, state: state), changed)
        }
        if changed { signal.post() }
        return committed
    }

    public func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage? {
        try await store.read { [self] connection in
            try await Self.sent(connection, sender: sender, clientMessageId: clientMessageId, logger: logger)?.message
        }
    }

    public func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        let request = ChatSendRequest(sender: sender, roomId: roomId, text: text, clientMessageId: clientMessageId)
        guard let outcome = await send([request]).first else { throw ServiceError.notFound(kind: "room", id: roomId) }
        return try outcome.get()
    }

    /// One statement: its cost does not grow with the messages stored.
    public func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck {
        try await store.read { [self] connection in
            let check = try await Self.sendCheck(connection, sender: sender, roomId: roomId, clientMessageId: clientMessageId, logger: logger)
            return ChatSendCheck(state: ChangeTracking.state(domain: chatDomain, sequence: check.latest), stored: check.stored?.message,
                                 isMember: check.isMember)
        }
    }

    /// The messages and the log's newest position in one statement (one snapshot): the log is
    /// commit-ordered, so every message up to that position is among them, and none after is
    /// delivered with a state before it.
    public func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch {
        // The state's form first; once the head is read, whether it lies within the log.
        let since = try ChatRules.sequence(of: sinceState, latest: .max)
        return try await store.read { [self] connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: PostgresChangeLog.latestPosition), \(unescaped: Self.messageColumns("c")) FROM (SELECT 1) one
                LEFT JOIN LATERAL (
                    SELECT * FROM chat_message WHERE room_id = \(roomId) AND log_sequence > \(since)
                    ORDER BY log_sequence LIMIT \(Self.fetchCount(limit))
                ) c ON true
                ORDER BY c.log_sequence
                """, logger: logger)
            var latest: Int64?
            var messages: [StoredChatMessage] = []
            for try await row in rows {
                let row = row.makeRandomAccess()
                latest = try row[0].decode(Int64?.self)
                if let message = try Self.message(row, at: 1) { messages.append(message) }
            }
            guard let latest else { throw PostgresChangeLogError.missingHead }
            _ = try ChatRules.sequence(of: sinceState, latest: latest)
            return ChatRules.batch(messages, limit: limit, latest: latest)
        }
    }

    public func state() async throws -> String {
        try await store.read { [self] connection in try await PostgresChangeLog.state(connection, domain: chatDomain, logger: logger) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await store.read { [self] connection in
            try await PostgresChangeLog.changes(connection, domain: chatDomain, since: sinceState, limit: limit, logger: logger)
        }
    }

    /// Whether the message at `position` is in `roomId`.
    static func isMessage(_ position: Int64, in roomId: String, _ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        for try await _ in try await connection.query("""
            SELECT 1 FROM chat_message WHERE position = \(position) AND room_id = \(roomId)
            """, logger: logger).decode(Int32.self) {
            return true
        }
        return false
    }
}
