import Jansson
import SwitchboardCore

/// What storing one message of a batch came to, in either SQL service: the answer for its sender,
/// and whether a message was stored (the batch posts the signal only then).
struct ChatSendOutcome: Sendable {
    var result: Result<Committed<ChatMessage>, any Error>
    /// True when a message was stored (not a duplicate, not failed).
    var stored: Bool

    /// A message newly stored, with the state after it.
    static func stored(_ message: StoredChatMessage, state: String) -> ChatSendOutcome {
        ChatSendOutcome(result: .success(Committed(message.message, state: state)), stored: true)
    }

    /// The message the sender stored before under the same client id: stored nothing, answered as
    /// that message marked ``ChatMessage/duplicate``; a failure when that message is in another room
    /// (two sends with one client id for two rooms, both queued before either was stored).
    static func duplicate(of existing: StoredChatMessage, for request: ChatSendRequest, state: String) -> ChatSendOutcome {
        guard existing.roomId.hasSameBytes(as: request.roomId) else { return .failed(ChatSend.reused(request.clientMessageId, in: existing.roomId)) }
        var message = existing.message
        message.duplicate = true
        return ChatSendOutcome(result: .success(Committed(message, state: state)), stored: false)
    }

    /// A message that failed alone (rolled back to its savepoint).
    static func failed(_ error: any Error) -> ChatSendOutcome {
        ChatSendOutcome(result: .failure(error), stored: false)
    }

    /// The answers of a batch, after posting `signal` when any message was stored.
    static func answers(_ outcomes: [ChatSendOutcome], signal: ChangeSignal) -> [Result<Committed<ChatMessage>, any Error>] {
        if outcomes.contains(where: \.stored) { signal.post() }
        return outcomes.map(\.result)
    }
}
