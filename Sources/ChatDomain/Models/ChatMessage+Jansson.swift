import Jansson

/// Built directly (``JanssonEncodable``): every `chat.send` answers one and every push carries one.
/// Writes what `encode(to:)` writes.
extension ChatMessage: JanssonEncodable {
    public func writeMembers(into object: JanssonObjectBuilder) throws {
        object.set("id", id)
        object.set("roomId", roomId)
        object.set("senderId", senderId)
        object.set("text", text)
        object.set("clientMessageId", clientMessageId)
        object.set("sentAt", sentAt)
        object.set("state", state.rawValue)
        if duplicate { object.set("duplicate", true) }
    }
}
