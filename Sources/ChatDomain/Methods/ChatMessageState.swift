import Jansson

/// `chat.messageState {roomId, clientMessageId, id, state, sentAt}`: what became of a message
/// `chat.send` answered as pending — `sent` with its id and time, or `failed` with a `reason`
/// (and the `debugId` of a service failure). Sent to the sender only, after the send's answer.
public struct ChatMessageState: Encodable, Sendable, Equatable {
    public static let method = "chat.messageState"

    public var roomId: String
    public var clientMessageId: String
    public var id: String?
    public var state: ChatMessage.State
    public var sentAt: String?
    public var reason: String?
    public var debugId: String?
    /// True when the message was stored already under this `clientMessageId` (by another process, between
    /// this send's check and its turn to be stored): nothing was stored again, and the stored text is kept.
    public var duplicate = false

    init(sent message: ChatMessage, clientMessageId: String) {
        roomId = message.roomId
        self.clientMessageId = clientMessageId
        id = message.id
        state = .sent
        sentAt = message.sentAt
        duplicate = message.duplicate
    }

    init(failed params: ChatSend.Params, reason: String, debugId: String?) {
        roomId = params.roomId
        clientMessageId = params.clientMessageId
        state = .failed
        self.reason = reason
        self.debugId = debugId
    }

    enum CodingKeys: String, CodingKey { case roomId, clientMessageId, id, state, sentAt, reason, debugId, duplicate }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roomId, forKey: .roomId)
        try container.encode(clientMessageId, forKey: .clientMessageId)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(sentAt, forKey: .sentAt)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(debugId, forKey: .debugId)
        if duplicate { try container.encode(true, forKey: .duplicate) }
    }
}

/// Built directly (``JanssonEncodable``), one per message sent; writes what `encode(to:)` writes.
extension ChatMessageState: JanssonEncodable {
    public func writeMembers(into object: JanssonObjectBuilder) throws {
        object.set("roomId", roomId)
        object.set("clientMessageId", clientMessageId)
        if let id { object.set("id", id) }
        object.set("state", state.rawValue)
        if let sentAt { object.set("sentAt", sentAt) }
        if let reason { object.set("reason", reason) }
        if let debugId { object.set("debugId", debugId) }
        if duplicate { object.set("duplicate", true) }
    }
}
