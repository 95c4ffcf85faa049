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
/// `duplicate: true`, and no notification follows; sending again while the first is still pending
/// answers that pending message with `duplicate: true` (``ChatSendsInFlight``); reused for another
/// room it is `-32602` naming `clientMessageId`. `state` is the chat state when answered: the
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

    /// The group commit that stores what `chat.send` answered: sends queued while a batch is written
    /// are stored together as the next batch (``ChatService/send(_:)``), confirmed in the order stored. A
    /// send made after another's answer was read is stored after it.
    public typealias Queue = GroupCommit<ChatSendRequest, Committed<ChatMessage>>

    /// The queue of `chat`'s sends: one per service, shared by every connection that sends through it.
    public static func queue(for chat: any ChatService) -> Queue {
        Queue(maxBatch: maxBatch) { batch in await chat.send(batch) }
    }

    /// The same, for a service opened on first use: a batch that cannot open it fails each of its messages.
    public static func queue(for chat: LazyService<any ChatService>) -> Queue {
        Queue(maxBatch: maxBatch) { batch in
            do {
                let service = try await chat.get()
                return await service.send(batch)
            } catch {
                return batch.map { _ in .failure(error) }
            }
        }
    }

    /// The most messages stored in one transaction.
    static let maxBatch = 256

    /// A client id the sender used for a message in another room: a transaction id names one message,
    /// so reusing it for another room is a client's mistake, refused whether the first is stored yet or not.
    static func reused(_ clientMessageId: String, in room: String) -> JSONFieldError {
        JSONFieldError(field: "clientMessageId", expected: "an id not used yet for a message in another room",
                       got: "\(JSONFieldError.quote(clientMessageId)), used in \(room)")
    }

    static func run(_ params: Params, chat: any ChatService, queue: Queue, inFlight: ChatSendsInFlight, user: String,
                    context: RequestContext) async throws -> Result {
        try ChatLimits.check(params.roomId, field: "roomId", maximum: ChatLimits.id)
        try ChatLimits.check(params.text, field: "text", maximum: ChatLimits.text)
        try ChatLimits.check(params.clientMessageId, field: "clientMessageId", maximum: ChatLimits.id)
        let pending = ChatMessage.pending(roomId: params.roomId, senderId: user, text: params.text, clientMessageId: params.clientMessageId)
        // Claimed before the check, and let go only once the send is stored (or failed): so a retry's
        // check either finds the first stored or finds its claim, never neither.
        let claimed = inFlight.claim(pending)
        let check = try await chat.sendCheck(sender: user, roomId: params.roomId, clientMessageId: params.clientMessageId)
        if var stored = check.stored {
            // A transaction id names one message: reused for another room it is a client's mistake.
            guard stored.roomId.hasSameBytes(as: params.roomId) else { throw reused(params.clientMessageId, in: stored.roomId) }
            stored.duplicate = true
            return Result(message: stored, state: check.state)
        }
        guard check.isMember else {
            throw ResponseError.notFound("room \(params.roomId)", field: "roomId", got: params.roomId)
        }
        let claim: ChatSendsInFlight.Claim
        switch claimed {
        case .success(let held):
            claim = held
        case .failure(let first):
            // Sent again while the first is pending: its answer, as for one stored already. The first's
            // chat.messageState goes to the connection that sent it (before or after this answer);
            // nothing more is queued.
            guard first.message.roomId.hasSameBytes(as: params.roomId) else { throw reused(params.clientMessageId, in: first.message.roomId) }
            var message = first.message
            message.duplicate = true
            return Result(message: message, state: check.state)
        }
        let connection = context.connection
        let request = ChatSendRequest(sender: user, roomId: params.roomId, text: params.text, clientMessageId: params.clientMessageId)
        // The place in the queue is taken as the answer goes out, so a send the client makes once it has read
        // this answer is stored after this one (the after-answer work of two sends may run in either
        // order), and released once the answer is out. A send whose answer never goes out (a drain
        // answered it already) takes no place and stores nothing.
        let place = queue.place(request, lane: ObjectIdentifier(connection))
        context.asAnswerGoesOut { place.take() }
        context.afterAnswer {
            await place.submit { outcome in
                claim.release()
                notify(outcome, of: params, connection: connection)
            }
        }
        return Result(message: pending, state: check.state)
    }

    /// Tells the sender how storing the message went.
    static func notify(_ outcome: Queue.Outcome, of params: Params, connection: Connection) {
        let notice: ChatMessageState
        switch outcome {
        case .success(let stored):
            // `duplicate`: another process stored this id first; the stored message's text is the one kept.
            notice = ChatMessageState(sent: stored.value, clientMessageId: params.clientMessageId)
        case .failure(let error):
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

/// Built directly (``JanssonEncodable``); writes what the synthesized `encode(to:)` writes.
extension ChatSend.Result: JanssonEncodable {
    public func writeMembers(into object: JanssonObjectBuilder) throws {
        try object.set("message", message)
        object.set("state", state)
    }
}
