import SwitchboardCore

/// One chat message: stored (`sent`), or as `chat.send` first answers it (`pending`, without id and
/// time), or one that could not be stored (`failed`).
public struct ChatMessage: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case pending, sent, failed
    }

    /// `msg-N`, unique in the database; `nil` until stored.
    public var id: String?
    public var roomId: String
    public var senderId: String
    public var text: String
    /// The sender's own id for the message (a Matrix transaction id): the same one never stores twice.
    /// `nil` for messages that did not come through `chat.send` (demo data, the simulated peer).
    public var clientMessageId: String?
    /// RFC 3339, UTC; `nil` until stored.
    public var sentAt: String?
    public var state: State
    /// True when `chat.send` found the message already stored under its `clientMessageId`.
    public var duplicate: Bool

    public init(id: String?, roomId: String, senderId: String, text: String, clientMessageId: String?, sentAt: String?,
                state: State, duplicate: Bool = false) {
        self.id = id
        self.roomId = roomId
        self.senderId = senderId
        self.text = text
        self.clientMessageId = clientMessageId
        self.sentAt = sentAt
        self.state = state
        self.duplicate = duplicate
    }

    /// A message `chat.send` has accepted but not stored yet.
    public static func pending(roomId: String, senderId: String, text: String, clientMessageId: String) -> ChatMessage {
        ChatMessage(id: nil, roomId: roomId, senderId: senderId, text: text, clientMessageId: clientMessageId, sentAt: nil, state: .pending)
    }

    enum CodingKeys: String, CodingKey { case id, roomId, senderId, text, clientMessageId, sentAt, state, duplicate }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        roomId = try container.decode(String.self, forKey: .roomId)
        senderId = try container.decode(String.self, forKey: .senderId)
        text = try container.decode(String.self, forKey: .text)
        clientMessageId = try container.decodeIfPresent(String.self, forKey: .clientMessageId)
        sentAt = try container.decodeIfPresent(String.self, forKey: .sentAt)
        state = try container.decode(State.self, forKey: .state)
        duplicate = try container.decodeIfPresent(Bool.self, forKey: .duplicate) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(roomId, forKey: .roomId)
        try container.encode(senderId, forKey: .senderId)
        try container.encode(text, forKey: .text)
        try container.encode(clientMessageId, forKey: .clientMessageId)
        try container.encode(sentAt, forKey: .sentAt)
        try container.encode(state, forKey: .state)
        if duplicate { try container.encode(true, forKey: .duplicate) }  // absent unless true
    }
}

/// A message as both services store it: its position in storage order, and its change-log position.
struct StoredChatMessage: Sendable, Equatable {
    /// Storage order, 1, 2, …: the message id is `msg-<position>`.
    var position: Int64
    /// The change-log sequence of its `created` record; `nil` for demo data, which predates every state.
    var logSequence: Int64?
    var roomId: String
    var senderId: String
    var text: String
    var clientMessageId: String?
    /// Milliseconds since the epoch.
    var sentAt: Int64

    static func id(position: Int64) -> String { "msg-\(position)" }

    /// The position a message id names, or `nil` when it is not a message id.
    static func position(of id: String) -> Int64? {
        guard id.hasPrefix("msg-"), let position = Int64(id.dropFirst(4)), position > 0, id == Self.id(position: position) else { return nil }
        return position
    }

    var message: ChatMessage {
        ChatMessage(id: Self.id(position: position), roomId: roomId, senderId: senderId, text: text,
                    clientMessageId: clientMessageId, sentAt: Timestamp.format(sentAt), state: .sent)
    }
}
