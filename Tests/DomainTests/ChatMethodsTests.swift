import ChatDomain
import Jansson
import JSONRPC
import Logging
import SchemaTesting
import SchemaValidation
import SwitchboardCore
import SwitchboardHost
import Synchronization
import Testing

/// The chat methods through the JSON-RPC layer, in process; every answer is checked against its
/// schema, and every `chat.messageState` against the `ChatMessageState` component. Those that need no
/// simulated peer (it answers in memory only) run on every backend.
@Suite("Chat methods", .timeLimit(.minutes(10)))
struct ChatMethodsTests {
    /// The methods of one chat service, and the notifications they sent.
    struct Methods {
        let dispatcher: Dispatcher
        let notices = NoticeBox()

        init(_ chat: any ChatService) throws {
            dispatcher = try MethodRegistry.chatMethods(chat).freeze()
        }

        func call(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> InProcessCall.Outcome {
            let notices = self.notices
            let outcome = await InProcessCall.call(method, params: params, dispatcher: dispatcher, logger: Logger(label: "test")) { notices.add($0) }
            DomainSchemas.expectValid(outcome.response, answering: method, sourceLocation: sourceLocation)
            return outcome
        }
    }

    /// Runs `body` with the methods of `backend`'s demo chat (on PostgreSQL a database of its own, dropped after).
    static func with(_ backend: ChatServiceTests.Backend, _ body: (Methods) async throws -> Void) async throws {
        try await ChatServiceTests.withChat(backend) { chat in try await body(try Methods(chat)) }
    }

    /// The in-memory chat, with its simulated peer.
    let chat: InMemoryChatService
    let memory: Methods

    init() throws {
        chat = InMemoryChatService(clock: ChatServiceTests.clock)
        memory = try Methods(chat)
    }

    func call(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> InProcessCall.Outcome {
        await memory.call(method, params, sourceLocation: sourceLocation)
    }

    var notices: NoticeBox { memory.notices }

    @Test("chat.users pages through every user but the signed-in one", arguments: ChatServiceTests.Backend.available)
    func usersPages(backend: ChatServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            var cursor: JSONValue = .null
            var ids: [String] = []
            repeat {
                var params: JSONObject = ["limit": 5]
                if cursor != .null { params["cursor"] = cursor }
                let result = try #require(await methods.call("chat.users", .object(params)).result)
                ids += try #require(result["items"]?.arrayValue).compactMap { $0["id"]?.stringValue }
                cursor = try #require(result["nextCursor"])
            } while cursor != .null
            #expect(ids.count == DemoChat.users.count - 1 && !ids.contains("u0"))
        }
    }

    @Test("chat.send answers pending, then chat.messageState says sent with the stored id; the simulated peer answers")
    func sendThenState() async throws {
        let result = try #require(await call("chat.send", ["roomId": "dm-u0-u1", "text": "lunch?", "clientMessageId": "c-7"]).result)
        #expect(result["message"]?["state"] == "pending")
        #expect(result["message"]?["id"] == .null && result["message"]?["sentAt"] == .null)
        let notice = try await notices.next()
        #expect(notice["method"] == "chat.messageState")
        #expect(notice["params"] == ["roomId": "dm-u0-u1", "clientMessageId": "c-7", "id": "msg-37", "state": "sent",
                                     "sentAt": "2026-01-01T09:00:00Z"])
        let history = try #require(await call("chat.history", ["roomId": "dm-u0-u1", "limit": 2]).result)
        let items = try #require(history["items"]?.arrayValue)
        #expect(items.map { $0["id"] } == ["msg-38", "msg-37"])
        #expect(items.first?["senderId"] == "u1")
        #expect(items.first?["clientMessageId"] == .null)
        // Sent again with the same id: the stored message, a duplicate, and no second notification.
        let again = try #require(await call("chat.send", ["roomId": "dm-u0-u1", "text": "lunch?", "clientMessageId": "c-7"]).result)
        #expect(again["message"]?["id"] == "msg-37" && again["message"]?["duplicate"] == true && again["message"]?["state"] == "sent")
        #expect(try await chat.history(user: "u0", roomId: "dm-u0-u1", page: PageRequest(limit: 3)).items.filter { $0.clientMessageId == "c-7" }.count == 1)
    }

    @Test("chat.open, chat.rooms, chat.markRead and chat.changes answer in their documented shapes", arguments: ChatServiceTests.Backend.available)
    func roomLifecycle(backend: ChatServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let state = try #require(await methods.call("chat.rooms", nil).result?["state"])
            let opened = try #require(await methods.call("chat.open", ["userId": "u9"]).result)
            #expect(opened["created"] == true && opened["room"]?["id"] == "dm-u0-u9")
            #expect(await methods.call("chat.open", ["userId": "u9"]).result?["created"] == false)
            let rooms = try #require(await methods.call("chat.rooms", nil).result?["items"]?.arrayValue)
            #expect(rooms.last?["id"] == "dm-u0-u9")
            let team = try #require(rooms.first { $0["id"] == "grp-team" })
            let marked = try #require(await methods.call("chat.markRead", ["roomId": "grp-team", "upTo": team["lastMessage"]!["id"]!]).result)
            #expect(marked["room"]?["unreadCount"] == 0)
            let changes = try #require(await methods.call("chat.changes", ["sinceState": state]).result)
            #expect(changes["created"] == ["dm-u0-u9"] && changes["updated"] == ["grp-team"])
        }
    }

    @Test("bad params are -32602 naming the member; unknown rooms and users -32004 naming theirs",
          arguments: ChatServiceTests.Backend.available, [
            ("chat.send", ["roomId": "dm-u0-u1", "text": "", "clientMessageId": "a"], -32602, "text"),
            ("chat.send", ["roomId": "dm-u0-u1", "text": .string(String(repeating: "é", count: 4_001)), "clientMessageId": "a"], -32602, "text"),
            ("chat.send", ["roomId": "dm-u0-u1", "text": "a\u{0}b", "clientMessageId": "a"], -32602, "text"),
            ("chat.send", ["roomId": "dm-u0-u1", "text": "hi", "clientMessageId": ""], -32602, "clientMessageId"),
            ("chat.send", ["roomId": "dm-u0-u1", "text": "hi", "clientMessageId": "a", "to": "x"], -32602, "to"),
            ("chat.send", ["roomId": "dm-u1-u2", "text": "hi", "clientMessageId": "a"], -32004, "roomId"),
            ("chat.open", ["userId": "u0"], -32602, "userId"),
            ("chat.open", ["userId": "nobody"], -32004, "userId"),
            ("chat.history", ["roomId": "grp-other"], -32004, "roomId"),
            ("chat.history", ["roomId": "grp-team", "cursor": "garbage"], -32602, "cursor"),
            ("chat.history", ["roomId": "grp-team", "limit": 0], -32602, "limit"),
            ("chat.markRead", ["roomId": "grp-team", "upTo": "msg-1"], -32004, "upTo"),
            ("chat.markRead", ["roomId": "grp-team", "upTo": "msg-9999999999999999999999"], -32004, "upTo"),
            ("chat.users", ["cursor": .string(String(repeating: "A", count: 40_000))], -32602, "cursor"),
          ] as [(String, JSONValue, Int64, String)])
    func badParams(backend: ChatServiceTests.Backend, request: (String, JSONValue, Int64, String)) async throws {
        let (method, params, code, field) = request
        try await Self.with(backend) { methods in
            let error = try #require(await methods.call(method, params).error)
            #expect(error["code"]?.int64Value == code, "\(error)")
            #expect(error["data"]?["field"]?.stringValue == field, "\(error)")
        }
    }

    @Test("a history cursor of one room is refused by another", arguments: ChatServiceTests.Backend.available)
    func cursorOfAnotherRoom(backend: ChatServiceTests.Backend) async throws {
        try await Self.with(backend) { methods in
            let cursor = try #require(await methods.call("chat.history", ["roomId": "grp-team", "limit": 1]).result?["nextCursor"])
            let error = try #require(await methods.call("chat.history", ["roomId": "dm-u0-u1", "cursor": cursor]).error)
            #expect(error["code"] == -32602 && error["data"]?["field"] == "cursor")
        }
    }
}

/// Notifications as they arrive, each checked against the `ChatMessageState` schema, awaited one at a time.
final class NoticeBox: Sendable {
    private struct State {
        var queue: [JSONValue] = []
        var waiter: CheckedContinuation<JSONValue, Never>?
    }

    private let state = Mutex(State())

    func add(_ message: JSONValue) {
        if message["method"] == "chat.messageState" { ChatNoticeSchema.expectValid(message["params"] ?? .null) }
        let waiter: CheckedContinuation<JSONValue, Never>? = state.withLock { state in
            guard let waiter = state.waiter else {
                state.queue.append(message)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: message)
    }

    /// The next notification (waits for it: the suite's time limit guards a hang).
    func next() async throws -> JSONValue {
        await withCheckedContinuation { continuation in
            let ready: JSONValue? = state.withLock { state in
                guard !state.queue.isEmpty else {
                    state.waiter = continuation
                    return nil
                }
                return state.queue.removeFirst()
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// The schema of `chat.messageState`'s params, from `rpc.discover`'s components.
enum ChatNoticeSchema {
    static func expectValid(_ params: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .success(let schemas) = DomainSchemas.shared else {
            Issue.record("no schemas to check chat.messageState against", sourceLocation: sourceLocation)
            return
        }
        for problem in schemas.validator.problems(of: params, against: ["$ref": "#/components/schemas/ChatMessageState"]) {
            Issue.record("chat.messageState does not match its schema: \(problem) in \(params.jsonText())", sourceLocation: sourceLocation)
        }
    }
}
