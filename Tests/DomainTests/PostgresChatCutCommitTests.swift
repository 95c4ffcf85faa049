@testable import ChatDomain
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Synchronization
import Testing

/// A chat batch whose session ended after its `COMMIT` was sent: the host's side of the connection is
/// gone, but on the server the batch's transaction may still be open (a backend cut off by the network,
/// or frozen and then closed by the store's verdict, reads the `COMMIT` later and commits). The look-up
/// that settles the batch must wait for that transaction to end, and never answer `failed` for a send
/// that may still commit.
///
/// The cut batch is staged on a connection of the test's own: the batch's statements run in a
/// transaction there, and its `COMMIT` (or its staying open) is what the server does after the host's
/// side was cut. No test asserts on time: each waits for the look-up's answer, or for it to wait for a lock.
@Suite("Chat on PostgreSQL: a batch cut after its COMMIT", .serialized, .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresChatCutCommitTests {
    static let logger = TestPostgres.logger
    static let request = ChatSendRequest(sender: DemoChat.me.id, roomId: "dm-u0-u1", text: "cut", clientMessageId: "cut-after-commit")
    static let sentAt: Int64 = 1_700_000_000_000
    static let cut = ServiceError.storageUnavailable(path: "postgres://test", cause: "the connection was cut")

    /// Runs `body` with a chat service on a fresh seeded database, its `connect_timeout` (and so the
    /// look-up's `lock_timeout`) 5 s (the test's `COMMIT` or `ROLLBACK` must reach the server within it
    /// once the look-up waits, on a loaded machine too), and a connection of the test's own holding the batch's open
    /// transaction: the message stored, the change log's head locked, no `COMMIT` yet. With
    /// `lookUpSetting` (`statement_timeout = '200ms'`), the database has that setting from then on, and
    /// the chat service given is another store's, whose sessions (the look-up's) all have it.
    static func withCutBatch(lookUpSetting: String? = nil,
                             _ body: (PostgresChatService, _ batch: PostgresConnection, _ watcher: PostgresConnection) async throws -> Void) async throws {
        try await TestPostgres.withFreshDatabase { fresh in
            var settings = fresh
            settings.connectTimeoutSeconds = 5
            let store = try await PostgresStore.open(settings, migrations: [PostgresChatService.migrations], logger: logger)
            let batch = try await TestPostgres.connect(settings)
            let watcher = try await TestPostgres.connect(settings)
            var lookUpStore: PostgresStore?
            do {
                let chat = PostgresChatService(store: store, clock: ChatServiceTests.clock)
                try await store.write { try await PostgresChatService.seed($0, clock: ChatServiceTests.clock, logger: logger) }
                try await batch.query("BEGIN", logger: logger)
                try #require(try await chat.send(request, sentAt: sentAt, batch).stored, "the staged batch stores its message")
                if let lookUpSetting {
                    // Sessions started from now have it: not the batch's, nor the watcher's, nor the first store's.
                    try await watcher.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(settings.database) SET \(lookUpSetting)"), logger: logger)
                    let other = try await PostgresStore.open(settings, migrations: [PostgresChatService.migrations], logger: logger)
                    lookUpStore = other
                    try await body(PostgresChatService(store: other, clock: ChatServiceTests.clock), batch, watcher)
                } else {
                    try await body(chat, batch, watcher)
                }
            } catch {
                try? await batch.close()
                try? await watcher.close()
                if let lookUpStore { await lookUpStore.close() }
                await store.close()
                throw error
            }
            try? await batch.close()
            try? await watcher.close()
            if let lookUpStore { await lookUpStore.close() }
            await store.close()
        }
    }

    /// Whether the message is stored (committed), read on `connection`.
    /// The cause of the first answer's `-32050`; records an issue (and gives nil) when it is anything else.
    static func mayBeStoredCause(_ answers: [Result<Committed<ChatMessage>, any Error>],
                                 sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        guard case .failure(let error)? = answers.first, case .storageUnavailable(_, let cause)? = error as? ServiceError else {
            Issue.record("expected -32050 saying the message may be stored, got \(answers)", sourceLocation: sourceLocation)
            return nil
        }
        return cause
    }

    /// Settles the cut batch while its transaction is still open, then commits it as the server does
    /// later: checks that it is stored, and gives the cause of the look-up's `-32050` (``mayBeStoredCause(_:sourceLocation:)``).
    static func settleThenCommit(_ chat: PostgresChatService, batch: PostgresConnection, watcher: PostgresConnection,
                                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> String? {
        let answers = await chat.settle([request], sentAt: sentAt, afterCommitCut: cut)
        try await batch.query("COMMIT", logger: logger)
        #expect(try await stored(watcher), sourceLocation: sourceLocation)
        return mayBeStoredCause(answers, sourceLocation: sourceLocation)
    }

    static func stored(_ connection: PostgresConnection) async throws -> Bool {
        for try await count in try await connection.query(
            "SELECT count(*) FROM chat_message WHERE client_message_id = \(request.clientMessageId)", logger: logger).decode(Int64.self) {
            return count == 1
        }
        return false
    }

    /// Runs the look-up in a task of its own, and waits until it has answered or waits for a lock.
    static func settling(_ chat: PostgresChatService, watcher: PostgresConnection) async throws -> Task<[Result<Committed<ChatMessage>, any Error>], Never> {
        let answered = Atomic<Bool>(false)
        let task = Task {
            let answers = await chat.settle([request], sentAt: sentAt, afterCommitCut: cut)
            answered.store(true, ordering: .sequentiallyConsistent)
            return answers
        }
        while !answered.load(ordering: .sequentiallyConsistent) {
            if try await PostgresChatSharedDatabaseTests.sessionsWaitingForLocks(watcher) >= 1 { break }
            await Task.yield()
        }
        return task
    }

    @Test("the batch's transaction commits while the look-up runs: the look-up waits for it and answers sent, not failed")
    func commitsLater() async throws {
        try await Self.withCutBatch { chat, batch, watcher in
            let settling = try await Self.settling(chat, watcher: watcher)
            // The backend reads the COMMIT only now (it thawed, or the cut network's data arrived).
            try await batch.query("COMMIT", logger: Self.logger)
            let answers = await settling.value
            #expect(try await Self.stored(watcher))
            #expect(answers.count == 1)
            if case .failure(let error)? = answers.first {
                Issue.record("a message committed after the cut was answered failed: \(error)")
            }
        }
    }

    @Test("the batch's transaction rolls back while the look-up runs: the message is answered failed, and it is not stored")
    func rollsBackLater() async throws {
        try await Self.withCutBatch { chat, batch, watcher in
            let settling = try await Self.settling(chat, watcher: watcher)
            try await batch.query("ROLLBACK", logger: Self.logger)
            let answers = await settling.value
            #expect(try await !Self.stored(watcher))
            guard case .failure(let error)? = answers.first, case .storageUnavailable(_, let cause)? = error as? ServiceError else {
                Issue.record("expected the cut's -32050, got \(answers)")
                return
            }
            #expect(cause == "the connection was cut", "\(cause)")
        }
    }

    @Test("the batch's transaction stays open past the look-up's lock_timeout: every message fails -32050 saying it may be stored, and it may: it commits after")
    func staysOpen() async throws {
        try await Self.withCutBatch { chat, batch, watcher in
            guard let cause = try await Self.settleThenCommit(chat, batch: batch, watcher: watcher) else { return }
            #expect(cause.contains("the message may be stored"), "\(cause)")
            #expect(cause.contains("had not ended on the server"), "\(cause)")
        }
    }

    @Test("the look-up is refused by a read-only server (25006): every message fails -32050 saying it may be stored, not -32051 as if it were not, and it may: it commits after")
    func lookUpReadOnly() async throws {
        try await Self.withCutBatch(lookUpSetting: "default_transaction_read_only = on") { chat, batch, watcher in
            guard let cause = try await Self.settleThenCommit(chat, batch: batch, watcher: watcher) else { return }
            #expect(cause.hasPrefix("the connection was cut; "), "\(cause)")
            #expect(cause.contains("looking it up failed too"), "\(cause)")
            #expect(cause.contains("the message may be stored"), "\(cause)")
        }
    }

    @Test("a role's or database's statement_timeout shorter than lock_timeout does not cut the look-up's wait: it waits lock_timeout, then every message fails -32050 saying it may be stored")
    func lookUpUnderShortStatementTimeout() async throws {
        try await Self.withCutBatch(lookUpSetting: "statement_timeout = '200ms'") { chat, batch, watcher in
            guard let cause = try await Self.settleThenCommit(chat, batch: batch, watcher: watcher) else { return }
            #expect(cause.contains("the message may be stored"), "\(cause)")
            // The lock's wait ran to lock_timeout: statement_timeout did not cancel it first.
            #expect(cause.contains("had not ended on the server"), "\(cause)")
        }
    }
}
