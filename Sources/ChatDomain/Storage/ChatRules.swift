import Jansson
import SwitchboardCore

/// The rules both chat services follow, kept once: room ids, list orders and their cursors.
enum ChatRules {
    /// The direct room of two users: its id is made from their ids, sorted, so the pair has one room
    /// whoever opens it (and SQLite's primary key keeps it one across processes).
    static func directRoomID(_ first: String, _ second: String) -> String {
        let pair = [first, second].sorted()
        return "dm-\(pair[0])-\(pair[1])"
    }

    /// The list a users cursor belongs to.
    static let usersList = "chat/users"

    static func historyList(_ roomId: String) -> String { "chat/history/\(roomId)" }

    /// Where a users page starts: after this (login, id), or at the start.
    static func usersAfter(_ cursor: String?) throws(JSONFieldError) -> (login: String, id: String)? {
        guard let cursor else { return nil }
        let decoded = try Cursor.decode(cursor, list: usersList)
        return (decoded.sortKey, decoded.id)
    }

    /// Where a history page starts: before this storage position, or at the newest message.
    static func historyBefore(_ cursor: String?, roomId: String) throws(JSONFieldError) -> Int64? {
        guard let cursor else { return nil }
        let decoded = try Cursor.decode(cursor, list: historyList(roomId))
        guard let position = Int64(decoded.sortKey), position > 0, decoded.id == StoredChatMessage.id(position: position) else {
            throw Cursor.invalid(cursor)
        }
        return position
    }

    /// A users page from up to `limit + 1` users in order.
    static func usersPage(_ users: [ChatUser], limit: Int) -> Page<ChatUser> {
        let items = Array(users.prefix(limit))
        let next = users.count > limit ? items.last.map { Cursor(list: usersList, sortKey: $0.login, id: $0.id).encoded } : nil
        return Page(items: items, nextCursor: next)
    }

    /// A history page from up to `limit + 1` messages, newest first.
    static func historyPage(_ messages: [StoredChatMessage], roomId: String, limit: Int) -> Page<ChatMessage> {
        let items = Array(messages.prefix(limit))
        let next = messages.count > limit
            ? items.last.map { Cursor(list: historyList(roomId), sortKey: String($0.position), id: StoredChatMessage.id(position: $0.position)).encoded }
            : nil
        return Page(items: items.map(\.message), nextCursor: next)
    }

    /// The batch a subscription gets from up to `limit + 1` messages after its state.
    static func batch(_ messages: [StoredChatMessage], limit: Int, latest: Int64) -> ChatMessageBatch {
        let items = Array(messages.prefix(limit))
        let hasMore = messages.count > limit
        let sequence = hasMore ? (items.last?.logSequence ?? latest) : latest
        return ChatMessageBatch(messages: items.map(\.message), state: ChangeTracking.state(domain: chatDomain, sequence: sequence), hasMore: hasMore)
    }

    /// The log position `state` names: any chat state up to `latest` (messages keep their position
    /// for good, so a state older than the change log kept still works here).
    static func sequence(of state: String, latest: Int64) throws(ServiceError) -> Int64 {
        try ChangeTracking.sequence(of: state, domain: chatDomain, oldest: 0, latest: latest)
    }
}

extension ChatRules {
    /// The room list's order: latest message first, rooms without messages last, ties by id.
    static func latestFirst(_ first: ChatRoom, _ second: ChatRoom) -> Bool {
        let a = first.lastMessage.flatMap { $0.id.flatMap(StoredChatMessage.position(of:)) } ?? 0
        let b = second.lastMessage.flatMap { $0.id.flatMap(StoredChatMessage.position(of:)) } ?? 0
        return a != b ? a > b : first.id < second.id
    }
}
