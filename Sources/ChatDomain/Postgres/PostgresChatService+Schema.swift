import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

extension PostgresChatService {
    /// The chat tables, as on SQLite (``SQLiteChatService/migrations``). Ids and logins order by
    /// bytes (`COLLATE "C"`, SQLite's `BINARY`), so pages and cursors match.
    ///
    /// - Important: One direct room per pair, across hosts: its id is made from its members' ids and
    ///   is the primary key, inserted `ON CONFLICT DO NOTHING`. One message per sender and client
    ///   message id: a unique index; a send that loses the race gets `23505` and answers the stored
    ///   message. Positions are numbered under the change log's head lock
    ///   (``PostgresChangeLog/reserve(_:logger:)``): in commit order, without gaps, as SQLite numbers them.
    public static let migrations = PostgresMigrations(domain: chatDomain, [
        PostgresMigration("chat-v1", statements: [
            """
            CREATE TABLE chat_user (
                id TEXT COLLATE "C" PRIMARY KEY,
                login TEXT COLLATE "C" NOT NULL UNIQUE,
                display_name TEXT NOT NULL,
                avatar_url TEXT NOT NULL,
                presence TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE chat_room (
                id TEXT COLLATE "C" PRIMARY KEY,
                kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
                name TEXT
            )
            """,
            // read_up_to: the position of the last message the member has read (0: none).
            """
            CREATE TABLE chat_member (
                room_id TEXT COLLATE "C" NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL,
                read_up_to BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (room_id, user_id)
            )
            """,
            "CREATE INDEX chat_member_user ON chat_member(user_id)",
            // position: storage order (the id is msg-<position>); log_sequence: the change-log position
            // of its created record (NULL for demo data, older than every state).
            """
            CREATE TABLE chat_message (
                position BIGINT PRIMARY KEY,
                room_id TEXT COLLATE "C" NOT NULL,
                sender_id TEXT COLLATE "C" NOT NULL,
                text TEXT NOT NULL,
                client_message_id TEXT COLLATE "C",
                sent_at BIGINT NOT NULL,
                log_sequence BIGINT
            )
            """,
            "CREATE INDEX chat_message_room ON chat_message(room_id, position)",
            "CREATE INDEX chat_message_room_log ON chat_message(room_id, log_sequence) WHERE log_sequence IS NOT NULL",
            """
            CREATE UNIQUE INDEX chat_message_client_id ON chat_message(sender_id, client_message_id)
                WHERE client_message_id IS NOT NULL
            """,
        ]),
    ])

    /// Writes the demo chat (``DemoChat``, dated back from `clock`) as SQLite's seed does, in the
    /// caller's transaction, without change records: users and rooms when missing, the demo messages
    /// only into an empty message table. A statement per table (arrays unnested), not per row.
    public static func seed(_ connection: PostgresConnection, clock: any WallClock, logger: Logger) async throws {
        let users = DemoChat.users
        try await connection.query("""
            INSERT INTO chat_user(id, login, display_name, avatar_url, presence)
            SELECT * FROM unnest(\(users.map(\.id))::text[], \(users.map(\.login))::text[], \(users.map(\.displayName))::text[],
                                 \(users.map(\.avatarUrl))::text[], \(users.map(\.presence.rawValue))::text[])
            ON CONFLICT DO NOTHING
            """, logger: logger)
        for room in DemoChat.rooms { try await insertRoom(room, connection, logger: logger) }
        var empty = true
        for try await exists in try await connection.query("SELECT EXISTS (SELECT 1 FROM chat_message)", logger: logger).decode(Bool.self) {
            empty = !exists
        }
        guard empty else { return }
        let demo = DemoChat.messages(now: clock.now())
        let messages = demo.messages
        try await connection.query("""
            INSERT INTO chat_message(position, room_id, sender_id, text, client_message_id, sent_at, log_sequence)
            SELECT position, room_id, sender_id, text, NULL, sent_at, NULL
            FROM unnest(\(messages.map(\.position))::int8[], \(messages.map(\.roomId))::text[], \(messages.map(\.senderId))::text[],
                        \(messages.map(\.text))::text[], \(messages.map(\.sentAt))::int8[]) AS m(position, room_id, sender_id, text, sent_at)
            """, logger: logger)
        let marks = demo.readUpTo.sorted { $0.key < $1.key }
        try await connection.query("""
            UPDATE chat_member m SET read_up_to = r.position
            FROM unnest(\(marks.map(\.key))::text[], \(marks.map(\.value))::int8[]) AS r(room_id, position)
            WHERE m.room_id = r.room_id AND m.user_id = \(DemoChat.me.id)
            """, logger: logger)
    }

    /// Inserts a room and its members unless it exists; true when it did not. Two hosts inserting the
    /// same room at once: the second waits for the first's commit and inserts nothing.
    @discardableResult
    static func insertRoom(_ room: ChatRoomRecord, _ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var created = false
        for try await _ in try await connection.query("""
            INSERT INTO chat_room(id, kind, name) VALUES (\(room.id), \(room.kind.rawValue), \(room.name)) ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger).decode(Int32.self) {
            created = true
        }
        guard created else { return false }
        try await connection.query("""
            INSERT INTO chat_member(room_id, user_id) SELECT \(room.id), member FROM unnest(\(room.members)::text[]) AS m(member)
            ON CONFLICT DO NOTHING
            """, logger: logger)
        return true
    }
}
