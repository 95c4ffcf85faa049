import Synchronization
import SwitchboardCore

/// Chat held in memory: the demo chat (``DemoChat``) at start, with change tracking in an in-memory
/// log. Deterministic for a given clock.
///
/// A simulated peer answers every message sent in a direct room with a line of its own
/// (``SimulatedPeer``), stored like any message right after it, so someone trying the host sees a
/// live conversation.
public final class InMemoryChatService: ChatService {
    public let signal: ChangeSignal
    private let clock: any WallClock
    private let peerReplies: Bool
    private let store: Mutex<InMemoryChatStore>

    /// - Parameters:
    ///   - peerReplies: whether the simulated peer answers in direct rooms.
    ///   - retainedChanges: change records kept (see ``InMemoryChangeLog``).
    public init(clock: any WallClock = SystemClock(), signal: ChangeSignal = ChangeSignal(), peerReplies: Bool = true,
                retainedChanges: Int = ChangeTracking.retainedRecords) {
        self.clock = clock
        self.signal = signal
        self.peerReplies = peerReplies
        let log = InMemoryChangeLog(retained: retainedChanges, interval: min(ChangeTracking.pruneInterval, retainedChanges))
        store = Mutex(InMemoryChatStore(now: clock.now(), log: log))
    }

    public func users(except user: String, page: PageRequest) async throws -> Page<ChatUser> {
        let after = try ChatRules.usersAfter(page.cursor)
        return store.withLock { store in
            let ordered = store.users.values.filter { !$0.id.hasSameBytes(as: user) }.sorted { ($0.login, $0.id) < ($1.login, $1.id) }
            let rest = ordered.filter { user in after.map { (user.login, user.id) > ($0.login, $0.id) } ?? true }
            return ChatRules.usersPage(Array(rest.prefix(page.limit + 1)), limit: page.limit)
        }
    }

    public func user(id: String) async throws -> ChatUser? {
        store.withLock { $0.users[ExactID(id)] }
    }

    public func rooms(user: String) async throws -> [ChatRoom] {
        store.withLock { store in
            let views = store.rooms.keys.compactMap { store.view($0.id, user: user) }
            return views.sorted(by: ChatRules.latestFirst)
        }
    }

    public func room(user: String, id: String) async throws -> ChatRoom? {
        store.withLock { $0.view(id, user: user) }
    }

    public func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom> {
        let opened = try store.withLock { store throws(ServiceError) in
            guard store.users[ExactID(other)] != nil else { throw ServiceError.notFound(kind: "user", id: other) }
            let record = ChatRoomRecord.direct(user, other)
            let created = store.rooms[ExactID(record.id)] == nil
            if created {
                store.rooms[ExactID(record.id)] = record
                store.log.record(itemID: record.id, kind: .created)
            }
            guard let view = store.view(record.id, user: user) else { throw ServiceError.notFound(kind: "room", id: record.id) }
            return Committed(OpenedRoom(room: view, created: created), state: store.state)
        }
        if opened.value.created { signal.post() }
        return opened
    }

    public func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage> {
        let before = try ChatRules.historyBefore(page.cursor, roomId: roomId)
        return try store.withLock { store throws(ServiceError) in
            guard store.view(roomId, user: user) != nil else { throw ServiceError.notFound(kind: "room", id: roomId) }
            let positions = (store.roomMessages[ExactID(roomId)] ?? []).reversed().lazy.filter { position in before.map { position < $0 } ?? true }
            let messages = positions.prefix(page.limit + 1).compactMap(store.message(at:))
            return ChatRules.historyPage(Array(messages), roomId: roomId, limit: page.limit)
        }
    }

    public func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom> {
        let (committed, changed) = try store.withLock { store throws(ServiceError) in
            guard store.view(roomId, user: user) != nil else { throw ServiceError.notFound(kind: "room", id: roomId) }
            guard let position = StoredChatMessage.position(of: messageId), store.message(at: position)?.roomId.hasSameBytes(as: roomId) == true else {
                throw ServiceError.notFound(kind: "message", id: messageId)
            }
            let key = InMemoryChatStore.MemberKey(first: roomId, second: user)
            let changed = position > store.readUpTo[key] ?? 0
            if changed {
                store.readUpTo[key] = position
                store.log.record(itemID: roomId, kind: .updated)
            }
            guard let view = store.view(roomId, user: user) else { throw ServiceError.notFound(kind: "room", id: roomId) }
            return (Committed(view, state: store.state), changed)
        }
        if changed { signal.post() }
        return committed
    }

    public func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage? {
        store.withLock { store in
            store.sent[InMemoryChatStore.MemberKey(first: sender, second: clientMessageId)].flatMap(store.message(at:))?.message
        }
    }

    public func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        let now = clock.now()
        let (committed, reply) = try store.withLock { store throws(ServiceError) in
            if let position = store.sent[InMemoryChatStore.MemberKey(first: sender, second: clientMessageId)],
               let stored = store.message(at: position) {
                var duplicate = stored.message
                duplicate.duplicate = true
                return (Committed(duplicate, state: store.state), nil as ChatRoomRecord?)
            }
            guard let room = store.rooms[ExactID(roomId)], room.hasMember(sender) else { throw ServiceError.notFound(kind: "room", id: roomId) }
            let stored = store.store(roomId: roomId, senderId: sender, text: text, clientMessageId: clientMessageId, sentAt: now)
            return (Committed(stored.message, state: store.state), room)
        }
        // Stored before under this client id, but for another room: this message is not the one stored.
        if committed.value.duplicate == true, !committed.value.roomId.hasSameBytes(as: roomId) { throw ChatSend.reused(clientMessageId, in: committed.value.roomId) }
        guard let room = reply else { return committed }
        signal.post()
        if peerReplies, let peer = SimulatedPeer.peer(in: room, answering: sender) { answer(in: room.id, as: peer) }
        return committed
    }

    /// The simulated peer's reply, stored as a write of its own after the message it answers.
    private func answer(in roomId: String, as peer: String) {
        let now = clock.now()
        store.withLock { store in
            let position = Int64(store.messages.count + 1)
            _ = store.store(roomId: roomId, senderId: peer, text: SimulatedPeer.reply(roomId: roomId, position: position),
                            clientMessageId: nil, sentAt: now)
        }
        signal.post()
    }

    public func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch {
        try store.withLock { store throws(ServiceError) in
            let since = try ChatRules.sequence(of: sinceState, latest: store.log.latest)
            let positions = (store.roomMessages[ExactID(roomId)] ?? [])
            // Positions and log sequences grow together: find the first message after `since` by bisection.
            var low = 0
            var high = positions.count
            while low < high {
                let middle = (low + high) / 2
                if (store.message(at: positions[middle])?.logSequence ?? 0) <= since { low = middle + 1 } else { high = middle }
            }
            let found = positions[low...].prefix(limit + 1).compactMap(store.message(at:))
            return ChatRules.batch(Array(found), limit: limit, latest: store.log.latest)
        }
    }

    public func state() async throws -> String {
        store.withLock { $0.state }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try store.withLock { store throws(ServiceError) in
            try store.log.changes(domain: chatDomain, since: sinceState, limit: limit)
        }
    }
}
