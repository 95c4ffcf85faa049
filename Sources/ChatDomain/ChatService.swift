import SwitchboardCore

/// Chat: users, direct and group rooms, messages sent with a client-chosen id.
///
/// Two implementations answer alike: ``InMemoryChatService`` (deterministic fixtures, and a
/// simulated peer that answers in direct rooms) and ``SQLiteChatService`` (GRDB, shared by every
/// process on one database file). Methods that read or write for someone take the user they act for.
///
/// - Important: Every write records its changes in the change log, in its transaction (messages
///   `created`; a room `created` when opened, `updated` when a message arrives or its reader's mark
///   moves), returns the state read in that transaction (``Committed``), and posts ``signal`` after
///   it commits. A message's `clientMessageId` is unique per sender: sending it again stores nothing
///   and returns the stored message marked ``ChatMessage/duplicate``. Services throw ``ServiceError``.
public protocol ChatService: Sendable {
    /// Posted after every committed write of this service.
    var signal: ChangeSignal { get }
    /// Every user but `user`, by login, a keyset page at a time (cursors of list `chat/users`).
    func users(except user: String, page: PageRequest) async throws -> Page<ChatUser>
    func user(id: String) async throws -> ChatUser?
    /// The rooms `user` is a member of, latest message first (rooms without messages last, by id).
    func rooms(user: String) async throws -> [ChatRoom]
    /// One room as `user` sees it; `nil` when there is none or `user` is not a member.
    func room(user: String, id: String) async throws -> ChatRoom?
    /// The direct room of `user` and `other`, created on first call: one per pair, however many
    /// processes open it at once. Throws ``ServiceError/notFound(kind:id:)`` for an unknown `other`.
    func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom>
    /// The room's messages, newest first, a keyset page at a time (cursors of `chat/history/ROOM`).
    /// Throws ``ServiceError/notFound(kind:id:)`` when `user` is not a member.
    func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage>
    /// Marks the room read by `user` up to and including message `upTo` (never backwards).
    /// Throws ``ServiceError/notFound(kind:id:)`` for a room `user` is not in, or a message not in it.
    func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom>
    /// The message `sender` stored under `clientMessageId`, if any.
    func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage?
    /// Stores a message of `sender` in a room they are a member of; when `clientMessageId` is stored
    /// already, stores nothing and returns that message with `duplicate` set.
    func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage>
    /// Stores each message of `batch` as ``send(sender:roomId:text:clientMessageId:)`` does, in order,
    /// and answers one outcome per message: one that fails fails only its own. SQLite stores the
    /// batch in one transaction; a failure of that transaction itself (the disk, a lock) fails every
    /// message of the batch and stores none.
    func send(_ batch: [ChatSendRequest]) async -> [Result<Committed<ChatMessage>, any Error>]
    /// What `chat.send` needs before it answers, read together. Its cost does not grow with the
    /// messages stored: it counts nothing (a room's view counts its unread messages).
    func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck
    /// The messages of `roomId` stored after `sinceState`, in storage order, at most `limit`: what a
    /// subscription delivers. Valid across processes on one database: it reads storage, not memory.
    /// Throws ``ServiceError/cannotCalculateChanges(state:reason:)`` for a state not of chat.
    func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch
    /// The domain's change-tracking state.
    func state() async throws -> String
    /// Message and room ids created or updated since `sinceState`, at most `limit`.
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet
}

extension ChatService {
    /// One message at a time: right where each send is as cheap as a batch (in memory).
    public func send(_ batch: [ChatSendRequest]) async -> [Result<Committed<ChatMessage>, any Error>] {
        var outcomes: [Result<Committed<ChatMessage>, any Error>] = []
        outcomes.reserveCapacity(batch.count)
        for request in batch {
            do {
                outcomes.append(.success(try await send(sender: request.sender, roomId: request.roomId, text: request.text,
                                                        clientMessageId: request.clientMessageId)))
            } catch {
                outcomes.append(.failure(error))
            }
        }
        return outcomes
    }

    /// From ``state()``, ``sentMessage(sender:clientMessageId:)`` and ``room(user:id:)``.
    public func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck {
        let state = try await state()
        let stored = try await sentMessage(sender: sender, clientMessageId: clientMessageId)
        let isMember = try await room(user: sender, id: roomId) != nil
        return ChatSendCheck(state: state, stored: stored, isMember: isMember)
    }
}

/// Messages of one room after a state, for a subscription: deliver `messages`, then ask again from
/// `state`; while `hasMore`, at once.
public struct ChatMessageBatch: Sendable, Equatable {
    /// In storage order (the order every process sees).
    public var messages: [ChatMessage]
    /// The state after these messages: the last one's when `hasMore`, else the domain's state read
    /// with them.
    public var state: String
    /// True when more messages follow `state`.
    public var hasMore: Bool

    public init(messages: [ChatMessage], state: String, hasMore: Bool) {
        self.messages = messages
        self.state = state
        self.hasMore = hasMore
    }
}

/// What `chat.open` gives: the room, and whether this call created it.
public struct OpenedRoom: Codable, Sendable, Equatable {
    public var room: ChatRoom
    public var created: Bool

    public init(room: ChatRoom, created: Bool) {
        self.room = room
        self.created = created
    }
}

/// The change-tracking domain name of chat.
public let chatDomain = "chat"
