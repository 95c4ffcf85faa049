import ChatDomain
import Jansson
import SwitchboardCore
import SwitchboardHost
import Synchronization
import Testing

/// `chat.send` sent again with the same `clientMessageId` while the first is still pending (a client's
/// retry after a time-out): one message is stored, the retry is told it is a duplicate, and one
/// `chat.messageState` tells what became of both.
@Suite("Chat retry while pending", .timeLimit(.minutes(5)))
struct ChatRetryWhilePendingTests {
    @Test("a retry while the first send is pending is answered that pending message as a duplicate; one message and one chat.messageState")
    func retryWhilePending() async throws {
        let chat = GatedChat(InMemoryChatService(clock: ChatServiceTests.clock, peerReplies: false))
        let methods = try ChatMethodsTests.Methods(chat)
        let first = try #require(await methods.call("chat.send", ["roomId": "dm-u0-u1", "text": "hello", "clientMessageId": "retry-1"]).result)
        #expect(first["message"]?["state"] == "pending")
        await chat.untilHeld()
        let again = try #require(await methods.call("chat.send", ["roomId": "dm-u0-u1", "text": "hello (edited)", "clientMessageId": "retry-1"]).result)
        #expect(again["message"]?["duplicate"] == true, "\(again)")
        #expect(again["message"]?["text"] == "hello" && again["message"]?["state"] == "pending")
        // The same id for another room, while it is pending, is the client's mistake, named at once.
        let elsewhere = await methods.call("chat.send", ["roomId": "grp-team", "text": "x", "clientMessageId": "retry-1"])
        #expect(elsewhere.error?["code"] == -32602 && elsewhere.error?["message"]?.stringValue?.contains("clientMessageId") == true, "\(elsewhere.response)")
        chat.open()
        let notice = try await methods.notices.next()
        #expect(notice["params"]?["clientMessageId"] == "retry-1" && notice["params"]?["state"] == "sent")
        #expect(notice["params"]?["duplicate"] == nil)
        // The next notice is the next send's: the retry queued nothing that would be confirmed again.
        _ = try #require(await methods.call("chat.send", ["roomId": "dm-u0-u1", "text": "after", "clientMessageId": "after-1"]).result)
        let next = try await methods.notices.next()
        #expect(next["params"]?["clientMessageId"] == "after-1", "\(next)")
        let stored = try await chat.history(user: "u0", roomId: "dm-u0-u1", page: PageRequest(limit: 5)).items.filter { $0.clientMessageId == "retry-1" }
        #expect(stored.map(\.text) == ["hello"])
    }
}

/// A chat whose batch sends wait until ``open()``; every other call goes straight through.
final class GatedChat: ChatService {
    private let base: any ChatService
    private let gate = Mutex<(open: Bool, held: [CheckedContinuation<Void, Never>], watchers: [CheckedContinuation<Void, Never>])>((false, [], []))

    init(_ base: any ChatService) { self.base = base }

    /// Lets every held send and every later one through.
    func open() {
        let held = gate.withLock { gate in
            gate.open = true
            defer { gate.held = [] }
            return gate.held
        }
        held.forEach { $0.resume() }
    }

    /// Returns once a send waits at the gate.
    func untilHeld() async {
        await withCheckedContinuation { continuation in
            let held = gate.withLock { gate in
                if gate.held.isEmpty { gate.watchers.append(continuation) }
                return !gate.held.isEmpty
            }
            if held { continuation.resume() }
        }
    }

    var signal: ChangeSignal { base.signal }

    func send(_ batch: [ChatSendRequest]) async -> [Result<Committed<ChatMessage>, any Error>] {
        await withCheckedContinuation { continuation in
            let (pass, watchers) = gate.withLock { gate -> (Bool, [CheckedContinuation<Void, Never>]) in
                if gate.open { return (true, []) }
                gate.held.append(continuation)
                defer { gate.watchers = [] }
                return (false, gate.watchers)
            }
            watchers.forEach { $0.resume() }
            if pass { continuation.resume() }
        }
        return await base.send(batch)
    }

    func users(except user: String, page: PageRequest) async throws -> Page<ChatUser> { try await base.users(except: user, page: page) }
    func user(id: String) async throws -> ChatUser? { try await base.user(id: id) }
    func rooms(user: String) async throws -> [ChatRoom] { try await base.rooms(user: user) }
    func room(user: String, id: String) async throws -> ChatRoom? { try await base.room(user: user, id: id) }
    func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom> { try await base.openDirect(user: user, with: other) }
    func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage> {
        try await base.history(user: user, roomId: roomId, page: page)
    }
    func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom> {
        try await base.markRead(user: user, roomId: roomId, upTo: messageId)
    }
    func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage? {
        try await base.sentMessage(sender: sender, clientMessageId: clientMessageId)
    }
    func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        let request = ChatSendRequest(sender: sender, roomId: roomId, text: text, clientMessageId: clientMessageId)
        guard let outcome = await send([request]).first else { throw ServiceError.notFound(kind: "room", id: roomId) }
        return try outcome.get()
    }
    func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck {
        try await base.sendCheck(sender: sender, roomId: roomId, clientMessageId: clientMessageId)
    }
    func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch {
        try await base.messages(roomId: roomId, after: sinceState, limit: limit)
    }
    func state() async throws -> String { try await base.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet { try await base.changes(since: sinceState, limit: limit) }
}
