import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `chat.subscribe {roomId}` → `{subscriptionId, state}`; then `chat.message {subscriptionId,
/// roomId, message}` for every message stored in the room after `state`, in storage order, exactly
/// once — whichever process on the same database stored it.
public enum ChatSubscribe: RPCMethod {
    public static let name = "chat.subscribe"
    public static let summary = "Pushes chat.message for every new message in a room."

    public struct Params: Decodable, Sendable {
        public var roomId: String
    }

    public typealias Result = SubscribeResult

    static func run(_ params: Params, chat: any ChatService, user: String, subscriptions: SubscriptionHub,
                    context: RequestContext) async throws -> Result {
        try ChatLimits.check(params.roomId, field: "roomId", maximum: ChatLimits.id)
        guard try await chat.room(user: user, id: params.roomId) != nil else {
            throw ResponseError(service: .notFound(kind: "room", id: params.roomId), field: "roomId")
        }
        return try await subscriptions.subscribe(namespace: "chat", feed: ChatRoomFeed(chat: chat, roomId: params.roomId),
                                                 context: context)
    }
}

/// `chat.unsubscribe {subscriptionId}`.
public enum ChatUnsubscribe: RPCMethod {
    public static let name = "chat.unsubscribe"
    public static let summary = "Ends a chat subscription of this connection."
    public typealias Params = UnsubscribeParams
    public typealias Result = UnsubscribeResult
}

/// The messages of one room, as `chat.message` events.
///
/// A batch's messages share one position, the state before the batch, except the last, which
/// carries the state after it: a subscription dropped mid-batch tells the client to resync from
/// where the batch began, so a message may be fetched again on resync but none is skipped.
struct ChatRoomFeed: SubscriptionFeed {
    let chat: any ChatService
    let roomId: String

    var method: String { "chat.message" }
    var coalesces: Bool { false }

    func start() async throws -> String { try await chat.state() }

    func events(after position: String, limit: Int) async throws -> SubscriptionStep {
        let batch = try await chat.messages(roomId: roomId, after: position, limit: limit)
        var events: [SubscriptionEvent] = []
        for (index, message) in batch.messages.enumerated() {
            let encoded = try JanssonEncoder().encode(message)
            let params: JSONObject = ["roomId": .string(roomId), "message": withExtendedLifetime(encoded) { JSONValue(encoded.view) }]
            events.append(SubscriptionEvent(params: params, position: index == batch.messages.count - 1 ? batch.state : position))
        }
        return SubscriptionStep(events: events, position: batch.state, hasMore: batch.hasMore)
    }
}
