import SwitchboardCore

/// What ``InMemoryChatService`` holds, behind its lock: users, rooms, messages in storage order,
/// read marks, and the change log. Ids are keyed by their bytes (``ExactID``), as SQLite and
/// PostgreSQL compare them: NFC `café` and NFD `cafe\u{301}` are two client message ids there.
struct InMemoryChatStore: Sendable {
    var users: [ExactID: ChatUser] = [:]
    var rooms: [ExactID: ChatRoomRecord] = [:]
    /// Position `p` is at index `p - 1`.
    var messages: [StoredChatMessage] = []
    /// Positions of each room's messages, in order.
    var roomMessages: [ExactID: [Int64]] = [:]
    /// How far each member has read each room (a position; 0 for nothing).
    var readUpTo: [MemberKey: Int64] = [:]
    /// Messages by sender and client message id.
    var sent: [MemberKey: Int64] = [:]
    var log: InMemoryChangeLog

    /// A (room or sender, user or client message id) pair.
    struct MemberKey: Hashable, Sendable {
        var first: ExactID
        var second: ExactID

        init(first: String, second: String) {
            self.first = ExactID(first)
            self.second = ExactID(second)
        }
    }

    init(now: Int64, log: InMemoryChangeLog) {
        self.log = log
        for user in DemoChat.users { users[ExactID(user.id)] = user }
        for room in DemoChat.rooms { rooms[ExactID(room.id)] = room }
        let demo = DemoChat.messages(now: now)
        for message in demo.messages { append(message) }
        for (room, position) in demo.readUpTo { readUpTo[MemberKey(first: room, second: DemoChat.me.id)] = position }
    }

    var state: String { log.state(domain: chatDomain) }

    func message(at position: Int64) -> StoredChatMessage? {
        position >= 1 && position <= Int64(messages.count) ? messages[Int(position - 1)] : nil
    }

    /// The room as `user` sees it; `nil` when `user` is not a member.
    func view(_ roomId: String, user: String) -> ChatRoom? {
        guard let room = rooms[ExactID(roomId)], room.hasMember(user) else { return nil }
        let positions = roomMessages[ExactID(roomId)] ?? []
        let read = readUpTo[MemberKey(first: roomId, second: user)] ?? 0
        let unread = positions.reversed().prefix { $0 > read }.filter { message(at: $0)?.senderId.hasSameBytes(as: user) == false }.count
        return room.view(lastMessage: positions.last.flatMap(message(at:)), unreadCount: unread)
    }

    /// Stores a new message at the next position, recording it and its room in the log.
    mutating func store(roomId: String, senderId: String, text: String, clientMessageId: String?, sentAt: Int64) -> StoredChatMessage {
        let position = Int64(messages.count + 1)
        log.record(itemID: StoredChatMessage.id(position: position), kind: .created)
        let message = StoredChatMessage(position: position, logSequence: log.latest, roomId: roomId, senderId: senderId,
                                        text: text, clientMessageId: clientMessageId, sentAt: sentAt)
        log.record(itemID: roomId, kind: .updated)
        append(message)
        return message
    }

    private mutating func append(_ message: StoredChatMessage) {
        messages.append(message)
        roomMessages[ExactID(message.roomId), default: []].append(message.position)
        if let id = message.clientMessageId { sent[MemberKey(first: message.senderId, second: id)] = message.position }
    }
}
