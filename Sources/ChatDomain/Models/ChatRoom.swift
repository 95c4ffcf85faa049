/// A conversation as the room list shows it to one member: its last message and how many messages
/// the others wrote that this member has not read.
public struct ChatRoom: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Two members; opened with `chat.open`, one per pair of users.
        case direct
        /// Any number of members, with a name.
        case group
    }

    public var id: String
    public var kind: Kind
    /// The group's name; `nil` for a direct room (clients show the other member).
    public var name: String?
    /// Member user ids, sorted.
    public var members: [String]
    public var lastMessage: ChatMessage?
    public var unreadCount: Int

    public init(id: String, kind: Kind, name: String?, members: [String], lastMessage: ChatMessage?, unreadCount: Int) {
        self.id = id
        self.kind = kind
        self.name = name
        self.members = members
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
    }

    enum CodingKeys: String, CodingKey { case id, kind, name, members, lastMessage, unreadCount }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encode(name, forKey: .name)  // null for a direct room, never absent
        try container.encode(members, forKey: .members)
        try container.encode(lastMessage, forKey: .lastMessage)
        try container.encode(unreadCount, forKey: .unreadCount)
    }
}
