/// What `chat.send` reads before it answers (``ChatService/sendCheck(sender:roomId:clientMessageId:)``):
/// the state, the message already stored under the client id, and whether the sender may send to
/// the room, read together.
public struct ChatSendCheck: Sendable, Equatable {
    /// The domain's state when read.
    public var state: String
    /// The message the sender stored under this `clientMessageId`, in whichever room.
    public var stored: ChatMessage?
    /// Whether the sender is a member of the room.
    public var isMember: Bool

    public init(state: String, stored: ChatMessage?, isMember: Bool) {
        self.state = state
        self.stored = stored
        self.isMember = isMember
    }
}
