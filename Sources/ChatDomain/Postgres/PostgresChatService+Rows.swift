import PostgresNIO
import SwitchboardCore
import SwitchboardPostgres

extension PostgresChatService {
    /// A message's columns of table alias `alias`, in the order ``message(_:at:)`` reads them.
    static func messageColumns(_ alias: String) -> String {
        ["position", "log_sequence", "room_id", "sender_id", "text", "client_message_id", "sent_at"].map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// The message whose columns (``messageColumns(_:)``) start at `offset`; `nil` when its position is
    /// NULL (a left join that found none).
    static func message(_ row: PostgresRandomAccessRow, at offset: Int) throws -> StoredChatMessage? {
        guard let position = try row[offset].decode(Int64?.self) else { return nil }
        return StoredChatMessage(position: position, logSequence: try row[offset + 1].decode(Int64?.self),
                                 roomId: try row[offset + 2].decode(String.self), senderId: try row[offset + 3].decode(String.self),
                                 text: try row[offset + 4].decode(String.self), clientMessageId: try row[offset + 5].decode(String?.self),
                                 sentAt: try row[offset + 6].decode(Int64.self))
    }

    static let userColumns = "id, login, display_name, avatar_url, presence"

    static func users(_ rows: PostgresRowSequence) async throws -> [ChatUser] {
        var users: [ChatUser] = []
        for try await (id, login, displayName, avatarUrl, presence) in rows.decode((String, String, String, String, String).self) {
            users.append(ChatUser(id: id, login: login, displayName: displayName, avatarUrl: avatarUrl,
                                  presence: ChatUser.Presence(rawValue: presence) ?? .offline))
        }
        return users
    }

    /// One room a member sees, per row: the room, its members, the reader's unread count, its last message.
    private static let roomViews = """
        SELECT r.id, r.kind, r.name, ARRAY(SELECT user_id FROM chat_member WHERE room_id = r.id),
               (SELECT count(*) FROM chat_message c WHERE c.room_id = r.id AND c.position > m.read_up_to AND c.sender_id <> m.user_id),
               \(messageColumns("l"))
        FROM chat_member m JOIN chat_room r ON r.id = m.room_id
        LEFT JOIN LATERAL (SELECT * FROM chat_message WHERE room_id = r.id ORDER BY position DESC LIMIT 1) l ON true
        """

    /// The rooms `user` is a member of, as they see them, in one statement (one snapshot).
    static func views(_ connection: PostgresConnection, user: String, logger: Logger) async throws -> [ChatRoom] {
        try await views(connection.query("\(unescaped: roomViews) WHERE m.user_id = \(user)", logger: logger))
    }

    /// The room as `user` sees it; `nil` when there is none or `user` is not a member.
    static func view(_ connection: PostgresConnection, roomId: String, user: String, logger: Logger) async throws -> ChatRoom? {
        try await views(connection.query("\(unescaped: roomViews) WHERE m.user_id = \(user) AND m.room_id = \(roomId)", logger: logger)).first
    }

    private static func views(_ rows: PostgresRowSequence) async throws -> [ChatRoom] {
        var rooms: [ChatRoom] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            let record = ChatRoomRecord(id: try row[0].decode(String.self), kind: ChatRoom.Kind(rawValue: try row[1].decode(String.self)) ?? .group,
                                        name: try row[2].decode(String?.self), members: try row[3].decode([String].self))
            rooms.append(record.view(lastMessage: try message(row, at: 5), unreadCount: Int(try row[4].decode(Int64.self))))
        }
        return rooms
    }

    /// What a send checks first, in one statement: the change log's newest position, whether `sender`
    /// is in `roomId`, and the message `sender` stored under `clientMessageId` (in whichever room).
    static func sendCheck(_ connection: PostgresConnection, sender: String, roomId: String, clientMessageId: String,
                          logger: Logger) async throws -> (latest: Int64, isMember: Bool, stored: StoredChatMessage?) {
        let rows = try await connection.query("""
            SELECT \(unescaped: PostgresChangeLog.latestPosition),
                   EXISTS (SELECT 1 FROM chat_member WHERE room_id = \(roomId) AND user_id = \(sender)), \(unescaped: messageColumns("s"))
            FROM (SELECT 1) one
            LEFT JOIN chat_message s ON s.sender_id = \(sender) AND s.client_message_id = \(clientMessageId)
            """, logger: logger)
        for try await row in rows {
            let row = row.makeRandomAccess()
            guard let latest = try row[0].decode(Int64?.self) else { break }
            return (latest, try row[1].decode(Bool.self), try message(row, at: 2))
        }
        throw PostgresChangeLogError.missingHead
    }

    /// The message `sender` stored under `clientMessageId`, if any.
    static func sent(_ connection: PostgresConnection, sender: String, clientMessageId: String, logger: Logger) async throws -> StoredChatMessage? {
        let rows = try await connection.query("""
            SELECT \(unescaped: messageColumns("s")) FROM chat_message s WHERE s.sender_id = \(sender) AND s.client_message_id = \(clientMessageId)
            """, logger: logger)
        for try await row in rows { return try message(row.makeRandomAccess(), at: 0) }
        return nil
    }

    /// A page's `LIMIT`: one more than the page holds (is there a next page?).
    static func fetchCount(_ limit: Int) -> Int64 {
        Int64(min(max(limit, 0), Int(Int32.max))) + 1
    }
}
