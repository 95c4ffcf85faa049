import GRDB
import SwitchboardCore
import SwitchboardStorage

extension SQLiteChatService {
    static let messageColumns = "position, log_sequence, room_id, sender_id, text, client_message_id, sent_at"

    static func message(_ row: Row) -> StoredChatMessage { message(row, from: 0) }

    /// The message in ``messageColumns`` from column `first` of `row` on.
    static func message(_ row: Row, from first: Int) -> StoredChatMessage {
        StoredChatMessage(position: row[first], logSequence: row[first + 1], roomId: row[first + 2], senderId: row[first + 3],
                          text: row[first + 4], clientMessageId: row[first + 5], sentAt: row[first + 6])
    }

    static func user(_ row: Row) -> ChatUser {
        ChatUser(id: row[0], login: row[1], displayName: row[2], avatarUrl: row[3],
                 presence: ChatUser.Presence(rawValue: row[4]) ?? .offline)
    }

    static let userColumns = "id, login, display_name, avatar_url, presence"

    static func fetchMessage(_ db: Database, position: Int64) throws -> StoredChatMessage? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(messageColumns) FROM chat_message WHERE position = ?"), arguments: [position])
            .map(message)
    }

    static func fetchSent(_ db: Database, sender: String, clientMessageId: String) throws -> StoredChatMessage? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(messageColumns) FROM chat_message WHERE sender_id = ? AND client_message_id = ?"),
                         arguments: [sender, clientMessageId]).map(message)
    }

    /// The room as `user` sees it; `nil` when there is none or `user` is not a member.
    static func view(_ db: Database, roomId: String, user: String) throws -> ChatRoom? {
        guard let member = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT r.kind, r.name, m.read_up_to FROM chat_room r JOIN chat_member m ON m.room_id = r.id
            WHERE r.id = ? AND m.user_id = ?
            """), arguments: [roomId, user]) else { return nil }
        let members = try String.fetchAll(db.cachedStatement(sql: "SELECT user_id FROM chat_member WHERE room_id = ? ORDER BY user_id"),
                                          arguments: [roomId])
        let last = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT \(messageColumns) FROM chat_message WHERE room_id = ? ORDER BY position DESC LIMIT 1
            """), arguments: [roomId]).map(message)
        let unread = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM chat_message WHERE room_id = ? AND position > ? AND sender_id != ?
            """), arguments: [roomId, member[2] as Int64, user]) ?? 0
        let record = ChatRoomRecord(id: roomId, kind: ChatRoom.Kind(rawValue: member[0]) ?? .group, name: member[1], members: members)
        return record.view(lastMessage: last, unreadCount: unread)
    }

    /// Stores a new message at the next position, recording it and its room in the change log;
    /// returns it with the log's newest position after the two records.
    static func store(_ db: Database, roomId: String, senderId: String, text: String, clientMessageId: String?,
                      sentAt: Int64) throws -> (StoredChatMessage, latest: Int64) {
        try db.cachedStatement(sql: "INSERT INTO chat_message(room_id, sender_id, text, client_message_id, sent_at) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [roomId, senderId, text, clientMessageId, sentAt])
        let position = db.lastInsertedRowID
        let sequence = try ChangeLog.record(db, domain: chatDomain, itemID: StoredChatMessage.id(position: position), kind: .created)
        try db.cachedStatement(sql: "UPDATE chat_message SET log_sequence = ? WHERE position = ?").execute(arguments: [sequence, position])
        let latest = try ChangeLog.record(db, domain: chatDomain, itemID: roomId, kind: .updated)
        return (StoredChatMessage(position: position, logSequence: sequence, roomId: roomId, senderId: senderId, text: text,
                                  clientMessageId: clientMessageId, sentAt: sentAt), latest)
    }
}
