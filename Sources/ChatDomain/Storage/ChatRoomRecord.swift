import SwitchboardCore

/// A room as stored, before the reader's view (last message, unread count) is added.
struct ChatRoomRecord: Sendable, Equatable {
    var id: String
    var kind: ChatRoom.Kind
    var name: String?
    /// Sorted.
    var members: [String]

    init(id: String, kind: ChatRoom.Kind, name: String?, members: [String]) {
        self.id = id
        self.kind = kind
        self.name = name
        self.members = members.sorted()
    }

    /// The direct room of two users (see ``ChatRules/directRoomID(_:_:)``).
    static func direct(_ first: String, _ second: String) -> ChatRoomRecord {
        ChatRoomRecord(id: ChatRules.directRoomID(first, second), kind: .direct, name: nil, members: [first, second])
    }

    /// Whether `user` is a member, by the id's bytes (``ExactID``).
    func hasMember(_ user: String) -> Bool {
        members.contains { $0.hasSameBytes(as: user) }
    }

    /// The room as `reader` sees it.
    func view(lastMessage: StoredChatMessage?, unreadCount: Int) -> ChatRoom {
        ChatRoom(id: id, kind: kind, name: name, members: members, lastMessage: lastMessage?.message, unreadCount: unreadCount)
    }
}
