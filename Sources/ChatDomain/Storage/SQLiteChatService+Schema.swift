import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteChatService {
    /// The chat tables.
    ///
    /// - Important: One direct room per pair of users, across processes: a direct room's id is made
    ///   from its members' ids (``ChatRules/directRoomID(_:_:)``) and is the primary key, so two
    ///   processes opening it at once insert one row. One message per sender and client message id:
    ///   a unique index, so a retried send never stores a second copy.
    public static let migrations = [
        DatabaseMigration("chat-v1") { db in
            try db.execute(sql: """
                CREATE TABLE chat_user (
                    id TEXT PRIMARY KEY,
                    login TEXT NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    avatar_url TEXT NOT NULL,
                    presence TEXT NOT NULL
                );
                CREATE TABLE chat_room (
                    id TEXT PRIMARY KEY,
                    kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
                    name TEXT
                );
                -- read_up_to: the position of the last message the member has read (0: none).
                CREATE TABLE chat_member (
                    room_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    read_up_to INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (room_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX chat_member_user ON chat_member(user_id);
                -- position: storage order (the id is msg-<position>); log_sequence: the change-log
                -- sequence of its created record (NULL for demo data, older than every state).
                CREATE TABLE chat_message (
                    position INTEGER PRIMARY KEY,
                    room_id TEXT NOT NULL,
                    sender_id TEXT NOT NULL,
                    text TEXT NOT NULL,
                    client_message_id TEXT,
                    sent_at INTEGER NOT NULL,
                    log_sequence INTEGER
                );
                CREATE INDEX chat_message_room ON chat_message(room_id, position);
                CREATE INDEX chat_message_room_log ON chat_message(room_id, log_sequence) WHERE log_sequence IS NOT NULL;
                CREATE UNIQUE INDEX chat_message_client_id ON chat_message(sender_id, client_message_id)
                    WHERE client_message_id IS NOT NULL;
                """)
        },
    ]

    /// Writes the demo chat (``DemoChat``, dated back from `clock`) as the starting state, without
    /// change records. What is there already is kept: users and rooms are added when missing, the
    /// demo messages only into an empty message table.
    public static func seed(_ db: Database, clock: any WallClock) throws {
        for user in DemoChat.users {
            try db.execute(sql: "INSERT OR IGNORE INTO chat_user(id, login, display_name, avatar_url, presence) VALUES (?, ?, ?, ?, ?)",
                           arguments: [user.id, user.login, user.displayName, user.avatarUrl, user.presence.rawValue])
        }
        for room in DemoChat.rooms { try insertRoom(room, db) }
        guard try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message") == 0 else { return }
        let demo = DemoChat.messages(now: clock.now())
        for message in demo.messages {
            try db.execute(sql: """
                INSERT OR IGNORE INTO chat_message(position, room_id, sender_id, text, client_message_id, sent_at, log_sequence)
                VALUES (?, ?, ?, ?, NULL, ?, NULL)
                """, arguments: [message.position, message.roomId, message.senderId, message.text, message.sentAt])
        }
        for (room, position) in demo.readUpTo {
            try db.execute(sql: "UPDATE chat_member SET read_up_to = ? WHERE room_id = ? AND user_id = ?",
                           arguments: [position, room, DemoChat.me.id])
        }
    }

    /// Inserts a room and its members unless it exists; true when it did not.
    @discardableResult
    static func insertRoom(_ room: ChatRoomRecord, _ db: Database) throws -> Bool {
        try db.execute(sql: "INSERT OR IGNORE INTO chat_room(id, kind, name) VALUES (?, ?, ?)", arguments: [room.id, room.kind.rawValue, room.name])
        guard db.changesCount > 0 else { return false }
        for member in room.members {
            try db.execute(sql: "INSERT OR IGNORE INTO chat_member(room_id, user_id) VALUES (?, ?)", arguments: [room.id, member])
        }
        return true
    }
}
