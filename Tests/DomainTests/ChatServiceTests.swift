import ChatDomain
import GRDB
import Jansson
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import SwitchboardStorage
import Synchronization
import Testing

/// One suite, every implementation: what holds for chat in memory holds for SQLite and PostgreSQL.
@Suite("Chat service, in memory, on SQLite and on PostgreSQL")
struct ChatServiceTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite, postgres
        var testDescription: String { rawValue }

        /// The backends this run tests: PostgreSQL only with the test server (`scripts/test` starts it;
        /// CI always has it, and `TestPostgresPresenceTests` fails there without it).
        static var available: [Backend] { TestPostgres.isAvailable ? allCases : [.memory, .sqlite] }
    }

    static let me = DemoChat.me.id
    static let clock = FixedClock(milliseconds: 1_767_258_000_000)  // 2026-01-01T09:00:00Z

    /// Runs `body` with the service on `backend`, seeded, without the simulated peer (it answers in
    /// memory only); on PostgreSQL in a fresh database of its own, dropped after.
    @discardableResult
    static func withChat<T>(_ backend: Backend, signal: ChangeSignal = ChangeSignal(), _ body: (any ChatService) async throws -> T) async throws -> T {
        switch backend {
        case .memory:
            return try await body(InMemoryChatService(clock: clock, signal: signal, peerReplies: false))
        case .sqlite:
            let database = try AppDatabase(path: ":memory:", migrations: SQLiteChatService.migrations)
            try await database.writer.write { db in try SQLiteChatService.seed(db, clock: clock) }
            return try await body(SQLiteChatService(database: database, clock: clock, signal: signal))
        case .postgres:
            return try await withPostgresChat(signal: signal, body)
        }
    }

    /// Runs `body` with a seeded PostgreSQL chat in a fresh database of its own.
    static func withPostgresChat<T>(signal: ChangeSignal = ChangeSignal(), _ body: (PostgresChatService) async throws -> T) async throws -> T {
        try await TestPostgres.withFreshStore(migrations: [PostgresChatService.migrations]) { store in
            try await store.write { try await PostgresChatService.seed($0, clock: clock, logger: TestPostgres.logger) }
            return try await body(PostgresChatService(store: store, clock: clock, signal: signal))
        }
    }

    @Test("the demo data is the same on every backend: users, rooms, history", arguments: Backend.available.filter { $0 != .memory })
    func sameDemoData(backend: Backend) async throws {
        try await Self.withChat(.memory) { memory in
            try await Self.withChat(backend) { stored in
                #expect(try await memory.users(except: Self.me, page: PageRequest(limit: 500)).items
                    == stored.users(except: Self.me, page: PageRequest(limit: 500)).items)
                let rooms = try await memory.rooms(user: Self.me)
                #expect(rooms == (try await stored.rooms(user: Self.me)))
                #expect(rooms.count == 4)
                for room in rooms {
                    #expect(try await memory.history(user: Self.me, roomId: room.id, page: PageRequest(limit: 500)).items
                        == stored.history(user: Self.me, roomId: room.id, page: PageRequest(limit: 500)).items)
                }
                #expect(try await memory.state() == "chat-0")
                #expect(try await stored.state() == "chat-0")
            }
        }
    }

    @Test("users page by login, never list the signed-in user, and walk to the end", arguments: Backend.available)
    func usersPages(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            var cursor: String?
            var logins: [String] = []
            repeat {
                let page = try await chat.users(except: Self.me, page: PageRequest(cursor: cursor, limit: 5))
                logins += page.items.map(\.login)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(logins == DemoChat.users.dropFirst().map(\.login).sorted())
            #expect(!logins.contains(DemoChat.me.login))
            #expect(try await chat.user(id: "u1")?.login == "ada")
            #expect(try await chat.user(id: "u999") == nil)
        }
    }

    @Test("rooms come latest message first, with last message and unread count", arguments: Backend.available)
    func roomsOrderAndUnread(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let rooms = try await chat.rooms(user: Self.me)
            let positions = rooms.compactMap { $0.lastMessage?.id }
            #expect(positions == ["msg-36", "msg-35", "msg-34", "msg-33"])
            #expect(rooms.allSatisfy { $0.members.contains(Self.me) && $0.members == $0.members.sorted() })
            let team = try #require(rooms.first { $0.id == "grp-team" })
            #expect(team.kind == .group && team.name == "Team")
            let unread = try await chat.history(user: Self.me, roomId: team.id, page: PageRequest(limit: 2)).items.filter { $0.senderId != Self.me }
            #expect(team.unreadCount == unread.count)
            #expect(try await chat.rooms(user: "u12").isEmpty)
        }
    }

    @Test("opening a direct room creates it once; a second open finds it; an unknown user is notFound", arguments: Backend.available)
    func openDirect(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let before = try await chat.state()
            let first = try await chat.openDirect(user: Self.me, with: "u7")
            #expect(first.value.created)
            #expect(first.value.room.id == "dm-u0-u7")
            #expect(first.value.room.kind == .direct && first.value.room.members == ["u0", "u7"])
            #expect(first.value.room.lastMessage == nil && first.value.room.unreadCount == 0)
            let again = try await chat.openDirect(user: Self.me, with: "u7")
            #expect(!again.value.created && again.value.room == first.value.room)
            #expect(again.state == first.state)
            let changes = try await chat.changes(since: before, limit: 500)
            #expect(changes.created == ["dm-u0-u7"])
            // The same pair from the other side is the same room.
            #expect(try await chat.openDirect(user: "u7", with: Self.me).value.room.id == "dm-u0-u7")
            await #expect(throws: ServiceError.notFound(kind: "user", id: "u99")) { try await chat.openDirect(user: Self.me, with: "u99") }
        }
    }

    @Test("history pages newest first and is stable while messages arrive", arguments: Backend.available)
    func historyPages(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let room = "grp-team"
            let first = try await chat.history(user: Self.me, roomId: room, page: PageRequest(limit: 4))
            _ = try await chat.send(sender: Self.me, roomId: room, text: "new", clientMessageId: "h1")
            var ids = first.items.compactMap(\.id)
            var cursor = first.nextCursor
            while let next = cursor {
                let page = try await chat.history(user: Self.me, roomId: room, page: PageRequest(cursor: next, limit: 4))
                ids += page.items.compactMap(\.id)
                cursor = page.nextCursor
            }
            let positions = ids.compactMap { Int($0.dropFirst(4)) }
            #expect(positions == positions.sorted(by: >))
            #expect(Set(ids).count == ids.count)
            #expect(ids.count == DemoChat.messageCount / 4)
            await #expect(throws: ServiceError.notFound(kind: "room", id: "dm-u1-u2")) {
                try await chat.history(user: Self.me, roomId: "dm-u1-u2", page: PageRequest())
            }
        }
    }

    @Test("a send stores once per client message id; the same id again is the stored message, a duplicate", arguments: Backend.available)
    func sendIsIdempotent(backend: Backend) async throws {
        let signal = ChangeSignal()
        let posts = PostCounter(signal)
        try await Self.withChat(backend, signal: signal) { chat in
            let before = try await chat.state()
            let sent = try await chat.send(sender: Self.me, roomId: "dm-u0-u1", text: "hello", clientMessageId: "c-1")
            #expect(sent.value.state == .sent && !sent.value.duplicate)
            #expect(sent.value.id == "msg-37")
            #expect(sent.value.sentAt == "2026-01-01T09:00:00Z")
            #expect(sent.state == (try await chat.state()))
            #expect(posts.count == 1)
            let again = try await chat.send(sender: Self.me, roomId: "dm-u0-u1", text: "hello (retried)", clientMessageId: "c-1")
            #expect(again.value.duplicate)
            #expect(again.value.id == sent.value.id && again.value.text == "hello")
            #expect(posts.count == 1)
            #expect(try await chat.sentMessage(sender: Self.me, clientMessageId: "c-1") == sent.value)
            #expect(try await chat.sentMessage(sender: "u1", clientMessageId: "c-1") == nil)
            let changes = try await chat.changes(since: before, limit: 500)
            #expect(changes.created == ["msg-37"] && changes.updated == ["dm-u0-u1"])
            #expect(try await chat.history(user: Self.me, roomId: "dm-u0-u1", page: PageRequest(limit: 1)).items == [sent.value])
            await #expect(throws: ServiceError.notFound(kind: "room", id: "dm-u1-u2")) {
                try await chat.send(sender: Self.me, roomId: "dm-u1-u2", text: "x", clientMessageId: "c-2")
            }
        }
    }

    @Test("client message ids that differ only in Unicode normalisation are two sends on every backend, compared by their bytes",
          arguments: Backend.available)
    func clientIdsComparedByBytes(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
            let first = try await chat.send(sender: Self.me, roomId: "dm-u0-u1", text: "composed", clientMessageId: composed).value
            let second = try await chat.send(sender: Self.me, roomId: "dm-u0-u1", text: "decomposed", clientMessageId: decomposed).value
            #expect(!first.duplicate && !second.duplicate && first.id != second.id)
            // Swift's `==` would take the two ids as one: compare the texts' bytes.
            let stored = try await chat.sentMessage(sender: Self.me, clientMessageId: decomposed)
            #expect(stored.map { Array($0.text.utf8) } == Array("decomposed".utf8))
            let history = try await chat.history(user: Self.me, roomId: "dm-u0-u1", page: PageRequest(limit: 2)).items
            #expect(history.map { Array($0.text.utf8) } == [Array("decomposed".utf8), Array("composed".utf8)])
        }
    }

    @Test("one client id for two rooms in one batch (both queued before either was stored): the second fails alone, nothing is lost",
          arguments: Backend.available)
    func clientIdReusedInOneBatch(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let outcomes = await chat.send([
                ChatSendRequest(sender: Self.me, roomId: "grp-team", text: "to the team", clientMessageId: "k9"),
                ChatSendRequest(sender: Self.me, roomId: "dm-u0-u1", text: "to ada only", clientMessageId: "k9"),
                ChatSendRequest(sender: Self.me, roomId: "grp-team", text: "to the team (again)", clientMessageId: "k9"),
            ])
            let first = try outcomes[0].get().value
            #expect(first.roomId == "grp-team" && first.text == "to the team" && !first.duplicate)
            guard case .failure(let error as JSONFieldError) = outcomes[1] else {
                Issue.record("the send for another room: \(outcomes[1])")
                return
            }
            #expect(error.field == "clientMessageId" && error.got.hasSuffix("used in grp-team"), "\(error)")
            let again = try outcomes[2].get().value
            #expect(again.duplicate && again.id == first.id, "a retry for the same room is the stored message")
            let team = try await chat.history(user: Self.me, roomId: "grp-team", page: PageRequest(limit: 1)).items
            #expect(team.map(\.text) == ["to the team"])
            let direct = try await chat.history(user: Self.me, roomId: "dm-u0-u1", page: PageRequest(limit: 1)).items
            #expect(direct.map(\.text) != ["to ada only"])
        }
    }

    @Test("markRead moves the mark forward only and recounts unread", arguments: Backend.available)
    func markRead(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let room = try #require(try await chat.room(user: Self.me, id: "grp-team"))
            #expect(room.unreadCount > 0)
            let latest = try #require(room.lastMessage?.id)
            let marked = try await chat.markRead(user: Self.me, roomId: room.id, upTo: latest)
            #expect(marked.value.unreadCount == 0)
            let older = try await chat.history(user: Self.me, roomId: room.id, page: PageRequest(limit: 3)).items.last?.id
            let back = try await chat.markRead(user: Self.me, roomId: room.id, upTo: try #require(older))
            #expect(back.value.unreadCount == 0)
            #expect(back.state == marked.state)
            await #expect(throws: ServiceError.notFound(kind: "message", id: "msg-1")) {
                try await chat.markRead(user: Self.me, roomId: "dm-u0-u2", upTo: "msg-1")
            }
            await #expect(throws: ServiceError.notFound(kind: "message", id: "m1")) {
                try await chat.markRead(user: Self.me, roomId: room.id, upTo: "m1")
            }
        }
    }

    @Test("messages after a state come in storage order, in batches, with the state to continue from", arguments: Backend.available)
    func messagesAfterState(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            let start = try await chat.state()
            #expect(try await chat.messages(roomId: "dm-u0-u1", after: start, limit: 10) == ChatMessageBatch(messages: [], state: start, hasMore: false))
            var sent: [String] = []
            for index in 1...5 {
                sent.append(try #require(try await chat.send(sender: Self.me, roomId: "dm-u0-u1", text: "m\(index)", clientMessageId: "s\(index)").value.id))
                _ = try await chat.send(sender: Self.me, roomId: "grp-team", text: "other room", clientMessageId: "g\(index)")
            }
            var state = start
            var delivered: [String] = []
            var batches = 0
            while true {
                let batch = try await chat.messages(roomId: "dm-u0-u1", after: state, limit: 2)
                delivered += batch.messages.compactMap(\.id)
                state = batch.state
                batches += 1
                if !batch.hasMore { break }
            }
            #expect(delivered == sent)
            #expect(batches == 3)
            #expect(state == (try await chat.state()))
            await #expect(throws: ServiceError.self) { try await chat.messages(roomId: "dm-u0-u1", after: "mail-1", limit: 2) }
            await #expect(throws: ServiceError.self) { try await chat.messages(roomId: "dm-u0-u1", after: "chat-zzzzzz", limit: 2) }
        }
    }

    @Test("on SQLite, a database error that is not about the storage is a service failure with a debug id")
    func sqliteFailureHasDebugID() async throws {
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteChatService.migrations)
        try await database.writer.write { db in try db.execute(sql: "DROP TABLE chat_user") }
        try await Self.expectFailureWithDebugID(SQLiteChatService(database: database, clock: Self.clock))
    }

    /// `chat` has lost its `chat_user` table: reading users is a service failure with a debug id, naming it.
    static func expectFailureWithDebugID(_ chat: any ChatService) async throws {
        do {
            _ = try await chat.users(except: Self.me, page: PageRequest())
            Issue.record("users() read a dropped table")
        } catch ServiceError.serviceFailure(let debugId, let cause) {
            #expect(debugId.hasPrefix("sb-") && debugId.count == 19)
            #expect(cause.contains("chat_user"))
        }
    }

    @Test("on PostgreSQL, a server error that is not about the connection is a service failure with a debug id",
          .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
    func postgresFailureHasDebugID() async throws {
        try await Self.withPostgresChat { chat in
            try await chat.store.write { connection in _ = try await connection.query("DROP TABLE chat_user", logger: TestPostgres.logger) }
            try await Self.expectFailureWithDebugID(chat)
        }
    }

    @Test("an unknown state is cannotCalculateChanges", arguments: Backend.available)
    func unknownState(backend: Backend) async throws {
        try await Self.withChat(backend) { chat in
            await #expect(throws: ServiceError.self) { try await chat.changes(since: "feed-0", limit: 10) }
        }
    }
}

/// Counts the posts of a signal.
final class PostCounter: Sendable {
    private let counter = Atomic(0)

    init(_ signal: ChangeSignal) {
        signal.listen { [self] in counter.add(1, ordering: .relaxed) }
    }

    var count: Int { counter.load(ordering: .relaxed) }
}

/// The in-memory service's simulated peer.
@Suite("Chat's simulated peer")
struct ChatPeerTests {
    /// The room's newest messages after `count` sends on a fresh service.
    static func conversation(_ count: Int) async throws -> [ChatMessage] {
        let chat = InMemoryChatService(clock: ChatServiceTests.clock)
        for index in 1...count {
            _ = try await chat.send(sender: DemoChat.me.id, roomId: "dm-u0-u2", text: "question \(index)", clientMessageId: "q\(index)")
        }
        return try await chat.history(user: DemoChat.me.id, roomId: "dm-u0-u2", page: PageRequest(limit: 2 * count)).items
    }

    @Test("the peer answers each message in a direct room, stored right after it, the same on every run")
    func answersDeterministically() async throws {
        let first = try await Self.conversation(6)
        #expect(first == (try await Self.conversation(6)))
        let oldestFirst = Array(first.reversed())
        for (question, reply) in stride(from: 0, to: oldestFirst.count, by: 2).map({ (oldestFirst[$0], oldestFirst[$0 + 1]) }) {
            #expect(question.senderId == DemoChat.me.id && reply.senderId == "u2")
            #expect(reply.clientMessageId == nil && reply.state == .sent && reply.sentAt == "2026-01-01T09:00:00Z")
        }
        #expect(Set(first.filter { $0.senderId == "u2" }.map(\.text)).count > 1)
    }

    @Test("the peer stays quiet in a group room and posts the signal for its reply")
    func quietInGroups() async throws {
        let signal = ChangeSignal()
        let posts = PostCounter(signal)
        let chat = InMemoryChatService(clock: ChatServiceTests.clock, signal: signal)
        let state = try await chat.state()
        _ = try await chat.send(sender: DemoChat.me.id, roomId: "grp-team", text: "all hands?", clientMessageId: "g")
        #expect(try await chat.messages(roomId: "grp-team", after: state, limit: 10).messages.count == 1)
        #expect(posts.count == 1)
        _ = try await chat.send(sender: DemoChat.me.id, roomId: "dm-u0-u3", text: "hi", clientMessageId: "d")
        #expect(try await chat.messages(roomId: "dm-u0-u3", after: state, limit: 10).messages.map(\.senderId) == ["u0", "u3"])
        #expect(posts.count == 3)
    }
}
