import ChatDomain
import GRDB
import SchemaTesting
import SwitchboardCore
import SwitchboardStorage
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``SQLiteChatService/send(_:)``: a batch of sends is one transaction, and a message that fails
/// fails alone; a failure of the transaction fails the whole batch and stores nothing.
@Suite("Chat sends in batches, on SQLite")
struct ChatBatchSendTests {
    static let me = DemoChat.me.id

    /// A seeded chat on a fresh file, and its folder (the caller removes it).
    static func chat() throws -> (SQLiteChatService, folder: String) {
        let folder = try TestScratch.folder("chat-batch")
        let clock = ChatServiceTests.clock
        let database = try AppDatabase(path: folder + "/chat.sqlite", migrations: SQLiteChatService.migrations,
                                       prepare: { database in try database.writer.write { try SQLiteChatService.seed($0, clock: clock) } })
        return (SQLiteChatService(database: database, clock: clock), folder)
    }

    static func request(_ id: String, room: String = "grp-team", text: String = "hello") -> ChatSendRequest {
        ChatSendRequest(sender: me, roomId: room, text: text, clientMessageId: id)
    }

    /// Counts the transactions that commit on `database`'s writer.
    final class Commits: TransactionObserver, Sendable {
        private let count = Atomic<Int>(0)
        var total: Int { count.load(ordering: .relaxed) }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .relaxed) }
        func databaseDidRollback(_ db: Database) {}
    }

    /// Where the database refuses the poisoned message: at its first write, or after two (the message
    /// and its change record are written when its log position is set), which only a rollback undoes.
    static let refusals = [
        "BEFORE INSERT ON chat_message WHEN NEW.text = 'poison'",
        "BEFORE UPDATE OF log_sequence ON chat_message WHEN NEW.text = 'poison'",
    ]

    @Test("a batch is stored in one transaction; the message that fails fails alone, with its own error, and stores nothing",
          arguments: refusals)
    func oneFailsAlone(refusal: String) async throws {
        let (chat, folder) = try Self.chat()
        defer { _ = system("rm -rf '\(folder)'") }
        // A message the database refuses (a trigger, as a constraint would), among good ones.
        try await chat.database.writer.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse_poison \(refusal) BEGIN SELECT RAISE(ABORT, 'poisoned'); END")
        }
        let commits = Commits()
        try await chat.database.writer.writeWithoutTransaction { db in db.add(transactionObserver: commits, extent: .databaseLifetime) }
        let before = try await chat.state()
        let outcomes = await chat.send(Self.poisonedBatch)
        #expect(commits.total == 1)
        try await Self.expectPoisonedBatch(outcomes, chat: chat, since: before)
    }

    /// Two good messages, one the database refuses (text `poison`), one to a room the sender is not in,
    /// and the first one's client id again.
    static let poisonedBatch = [request("b1"), request("b2", text: "poison"), request("b3", room: "dm-u1-u2"), request("b4"), request("b1")]

    /// What ``poisonedBatch`` comes to on any SQL backend: the good ones stored at consecutive positions,
    /// the refused one a service failure of its own, the stranger's room notFound, the repeat a duplicate.
    static func expectPoisonedBatch(_ outcomes: [Result<Committed<ChatMessage>, any Error>], chat: any ChatService, since before: String) async throws {
        #expect(outcomes.count == poisonedBatch.count)
        let first = try #require(try? outcomes[0].get().value)
        let fourth = try #require(try? outcomes[3].get().value)
        #expect(first.state == .sent && first.clientMessageId == "b1" && fourth.clientMessageId == "b4")
        let positions = [first, fourth].compactMap { $0.id.flatMap { Int($0.dropFirst(4)) } }
        #expect(positions.count == 2 && positions[0] + 1 == positions[1], "the failed ones took no position: \(positions)")
        // The poisoned one is a service failure of its own; the room the sender is not in is notFound.
        guard case .failure(let poisoned) = outcomes[1], case .serviceFailure = poisoned as? ServiceError else {
            Issue.record("b2: \(outcomes[1])")
            return
        }
        guard case .failure(let notMember) = outcomes[2] else { Issue.record("b3: \(outcomes[2])"); return }
        #expect(notMember as? ServiceError == .notFound(kind: "room", id: "dm-u1-u2"))
        // The same client id again in the same batch: the message stored a moment before, a duplicate.
        let again = try #require(try? outcomes[4].get().value)
        #expect(again.duplicate && again.id == first.id)
        let changes = try await chat.changes(since: before, limit: 100)
        #expect(changes.created == [try #require(first.id), try #require(fourth.id)])
        #expect(try await chat.sentMessage(sender: me, clientMessageId: "b2") == nil)
    }

    @Test("a batch whose transaction fails (a read-only connection) fails every message with the storage error and stores none")
    func transactionFailureFailsTheBatch() async throws {
        let (chat, folder) = try Self.chat()
        defer { _ = system("rm -rf '\(folder)'") }
        let before = try await chat.state()
        try await chat.database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 1") }
        let outcomes = await chat.send([Self.request("r1"), Self.request("r2")])
        #expect(outcomes.count == 2)
        for outcome in outcomes {
            guard case .failure(let error) = outcome, case .storageReadOnly = error as? ServiceError else {
                Issue.record("\(outcome)")
                continue
            }
        }
        try await chat.database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 0") }
        #expect(try await chat.state() == before)
        #expect(try await chat.sentMessage(sender: Self.me, clientMessageId: "r1") == nil)
    }
}
