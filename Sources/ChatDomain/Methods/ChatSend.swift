import DomainMethods
import Jansson
import JSONRPC
import Logging
import SwitchboardCore

/// `chat.send {roomId, text, clientMessageId}` → `{message, state}`: answers at once with the message
/// `pending`, then stores it and tells the sender with `chat.messageState` (``ChatMessageState``),
/// which always follows the answer.
///
/// `clientMessageId` works like a Matrix transaction id: sending again with one already stored (after
/// a time-out, a crash, a reconnect) stores nothing and answers the stored message with
/// `duplicate: true`, and no notification follows; reused for another room it is `-32602` naming
/// `clientMessageId`. `state` is the chat state when answered: the
/// stored message is among the changes since it.
public enum ChatSend: RPCMethod {
    public static let name = "chat.send"
    public static let summary = "Sends a message: answers it pending, then notifies chat.messageState when it is stored."

    public struct Params: Decodable, Sendable {
        public var roomId: String
        public var text: String
        public var clientMessageId: String
    }

    public struct Result: Encodable, Sendable {
        public var message: ChatMessage
        public var state: String
    }

    static func run(_ params: Params, chat: any ChatService, user: String, context: RequestContext) async throws -> Result {
        try ChatLimits.check(params.roomId, field: "roomId", maximum: ChatLimits.id)
        try ChatLimits.check(params.text, field: "text", maximum: ChatLimits.text)
        try ChatLimits.check(params.clientMessageId, field: "clientMessageId", maximum: ChatLimits.id)
        let state = try await chat.state()
        if var stored = try await chat.sentMessage(sender: user, clientMessageId: params.clientMessageId) {
            // A transaction id names one message: reused for another room it is a client's mistake.
            guard stored.roomId == params.roomId else {
                throw JSONFieldError(field: "clientMessageId", expected: "an id not used yet for a message in another room",
                                     got: "\(JSONFieldError.quote(params.clientMessageId)), used in \(stored.roomId)")
            }
            stored.duplicate = true
            return Result(message: stored, state: state)
        }
        guard try await chat.room(user: user, id: params.roomId) != nil else {
            throw ResponseError.notFound("room \(params.roomId)", field: "roomId", got: params.roomId)
        }
        let connection = context.connection
        context.afterAnswer { await store(params, chat: chat, user: user, connection: connection) }
        return Result(message: .pending(roomId: params.roomId, senderId: user, text: params.text, clientMessageId: params.clientMessageId),
                      state: state)
    }

    /// Stores the message and tells the sender how it went.
    static func store(_ params: Params, chat: any ChatService, user: String, connection: Connection) async {
        let notice: ChatMessageState
        do {
            let stored = try await chat.send(sender: user, roomId: params.roomId, text: params.text, clientMessageId: params.clientMessageId)
            notice = ChatMessageState(sent: stored.value, clientMessageId: params.clientMessageId)
        } catch {
            let failure = (error as? ServiceError).map { ResponseError(service: $0) } ?? ResponseError(error)
            if case .serviceFailure(let debugId, let cause) = error as? ServiceError {
                connection.logger.error("\(name) failed: service failure debugId=\(debugId): \(cause)")
            } else {
                connection.logger.warning("\(name) could not store \(params.clientMessageId): \(failure.message)")
            }
            notice = ChatMessageState(failed: params, reason: failure.message, debugId: failure.data?["debugId"]?.stringValue)
        }
        try? connection.notify(method: ChatMessageState.method, encoding: notice)
    }
}
