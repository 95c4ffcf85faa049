/// One message to store, as `chat.send` queues it for ``ChatService/send(_:)``.
public struct ChatSendRequest: Sendable, Equatable {
    public var sender: String
    public var roomId: String
    public var text: String
    public var clientMessageId: String

    public init(sender: String, roomId: String, text: String, clientMessageId: String) {
        self.sender = sender
        self.roomId = roomId
        self.text = text
        self.clientMessageId = clientMessageId
    }
}
