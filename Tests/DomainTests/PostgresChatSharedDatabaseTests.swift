import ChatDomain
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Testing

/// Two chat services on one PostgreSQL database, each with its own pool, as two hosts have them:
/// rooms and client message ids stay unique when both write at once, a batch is one transaction in
/// which a message fails alone, and one host reads the other's messages in commit order.
@Suite("Chat on PostgreSQL: two hosts on one database", .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresChatSharedDatabaseTests {
    static let me = DemoChat.me.id
    static let logger = TestPostgres.logger

    /// Runs `body` with two services on a fresh seeded database (two pools, as two hosts).
    static func withPair(_ body: (PostgresChatService, PostgresChatService) async throws -> Void) async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let first = try await PostgresStore.open(settings, migrations: [PostgresChatService.migrations], logger: logger)
            do {
                let second = try await PostgresStore.open(settings, migrations: [PostgresChatService.migrations], logger: logger)
                do {
                    let clock = ChatServiceTests.clock
                    try await first.write { try await PostgresChatService.seed($0, clock: clock, logger: logger) }
                    try await body(PostgresChatService(store: first, clock: clock), PostgresChatService(store: second, clock: clock))
                } catch {
                    await second.close()
                    throw error
                }
                await second.close()
            } catch {
                await first.close()
                throw error
            }
            await first.close()
        }
    }

    /// Runs SQL statements in one transaction on `chat`'s database.
    static func execute(_ chat: PostgresChatService, _ statements: String...) async throws {
        try await chat.store.write { connection in
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }
    }

    /// The one number `sql` answers.
    static func number(_ chat: PostgresChatService, _ sql: String) async throws -> Int64 {
        try await chat.store.read { connection in
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int64.self) { return value }
            return -1
        }
    }

    /// How many sessions on this database wait for a lock (other tests' databases not counted).
    static func sessionsWaitingForLocks(_ connection: PostgresConnection) async throws -> Int64 {
        for try await count in try await connection.query("""
            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            """, logger: logger).decode(Int64.self) {
            return count
        }
        return 0
    }

    @Test("both hosts opening the same direct room at once, many times over: one room, created by exactly one call")
    func openRace() async throws {
        try await Self.withPair { a, b in
            let before = try await a.state()
            let opened = try await withThrowingTaskGroup(of: OpenedRoom.self) { group in
                for index in 0..<8 {
                    let (chat, user, other) = index.isMultiple(of: 2) ? (a, Self.me, "u9") : (b, "u9", Self.me)
                    group.addTask { try await chat.openDirect(user: user, with: other).value }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(opened.map(\.room.id)) == ["dm-u0-u9"])
            #expect(opened.filter(\.created).count == 1)
            #expect(try await Self.number(a, "SELECT count(*) FROM chat_room WHERE id = 'dm-u0-u9'") == 1)
            #expect(try await Self.number(a, "SELECT count(*) FROM chat_member WHERE room_id = 'dm-u0-u9'") == 2)
            #expect(try await b.changes(since: before, limit: 100).created == ["dm-u0-u9"])
        }
    }

    @Test("two sends of one client id that both found it unsent: the second's unique violation is answered as the first's message, a duplicate")
    func uniqueViolationIsTheDuplicate() async throws {
        try await Self.withPair { a, b in
            // A third connection holds the change log's head: both sends check (nothing stored yet), then wait for it.
            let holder = try await TestPostgres.connect(a.store.settings)
            let watcher = try await TestPostgres.connect(a.store.settings)
            try await holder.query("BEGIN", logger: Self.logger)
            try await holder.query("SELECT sequence FROM change_log_head WHERE id = 1 FOR UPDATE", logger: Self.logger)
            async let first = a.send(sender: Self.me, roomId: "dm-u0-u1", text: "once", clientMessageId: "same")
            async let second = b.send(sender: Self.me, roomId: "dm-u0-u1", text: "once", clientMessageId: "same")
            for _ in 0..<100_000 {
                if try await Self.sessionsWaitingForLocks(watcher) >= 2 { break }
                await Task.yield()
            }
            #expect(try await Self.sessionsWaitingForLocks(watcher) == 2, "both sends wait for the head, past their checks")
            try await holder.query("COMMIT", logger: Self.logger)
            let (one, two) = try await (first, second)
            #expect(one.value.id == two.value.id && one.value.id == "msg-37")
            #expect([one.value.duplicate, two.value.duplicate].filter { $0 }.count == 1)
            #expect(try await Self.number(a, "SELECT count(*) FROM chat_message WHERE client_message_id = 'same'") == 1)
            // The position the loser tried is given to the next message: no gap.
            #expect(try await b.send(sender: Self.me, roomId: "dm-u0-u1", text: "next", clientMessageId: "next").value.id == "msg-38")
            try await holder.close()
            try await watcher.close()
        }
    }

    @Test("a batch is one transaction; the message that fails fails alone, with its own error, and takes no position")
    func batchMessageFailsAlone() async throws {
        try await Self.withPair { chat, _ in
            try await Self.execute(chat, """
                CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.text = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF;
                    INSERT INTO sent_in(position, tx) VALUES (NEW.position, txid_current());
                    RETURN NEW;
                END $$
                """,
                "CREATE TABLE sent_in (position BIGINT, tx BIGINT)",
                "CREATE TRIGGER refuse_poison BEFORE INSERT ON chat_message FOR EACH ROW EXECUTE FUNCTION refuse_poison()")
            let before = try await chat.state()
            try await ChatBatchSendTests.expectPoisonedBatch(await chat.send(ChatBatchSendTests.poisonedBatch), chat: chat, since: before)
            #expect(try await Self.number(chat, "SELECT count(DISTINCT tx) FROM sent_in") == 1, "one transaction")
            #expect(try await Self.number(chat, "SELECT count(*) FROM sent_in") == 2)
        }
    }

    @Test("a batch whose commit fails fails every message with that error and stores none")
    func commitFailureFailsTheBatch() async throws {
        try await Self.withPair { chat, _ in
            try await Self.execute(chat, """
                CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.text = 'refused at commit' THEN RAISE EXCEPTION 'refused at commit'; END IF;
                    RETURN NEW;
                END $$
                """,
                """
                CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON chat_message
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_at_commit()
                """)
            let before = try await chat.state()
            let outcomes = await chat.send([ChatBatchSendTests.request("c1"), ChatBatchSendTests.request("c2", text: "refused at commit")])
            #expect(outcomes.count == 2)
            for outcome in outcomes {
                guard case .failure(let error) = outcome, case .serviceFailure = error as? ServiceError else {
                    Issue.record("\(outcome)")
                    continue
                }
            }
            #expect(try await chat.state() == before)
            #expect(try await chat.sentMessage(sender: Self.me, clientMessageId: "c1") == nil)
            #expect(try await Self.number(chat, "SELECT count(*) FROM chat_message") == Int64(DemoChat.messageCount))
        }
    }

    @Test("while both hosts send at once, a reader following messages after its state sees each once, in commit order")
    func followWhileBothWrite() async throws {
        try await Self.withPair { a, b in
            let start = try await b.state()
            let perHost = 25
            async let fromA: [String] = Self.sendMany(a, prefix: "a", count: perHost)
            async let fromB: [String] = Self.sendMany(b, prefix: "b", count: perHost)
            var state = start
            var read: [ChatMessage] = []
            for _ in 0..<100_000 {
                if read.count >= 2 * perHost { break }
                let batch = try await a.messages(roomId: "grp-team", after: state, limit: 7)
                read += batch.messages
                state = batch.state
            }
            let sent = try await fromA + fromB
            #expect(read.count == 2 * perHost)
            #expect(Set(read.compactMap(\.id)) == Set(sent))
            // Commit order is position order: positions are handed out under the log's head lock.
            let positions = read.compactMap { $0.id.flatMap { Int64($0.dropFirst(4)) } }
            #expect(positions == Array(37..<Int64(37 + 2 * perHost)))
            // Each host's own messages in the order it sent them.
            #expect(read.filter { $0.clientMessageId?.hasPrefix("a") == true }.compactMap(\.id) == (try await fromA))
            #expect(try await a.messages(roomId: "grp-team", after: state, limit: 7).messages.isEmpty)
        }
    }

    static func sendMany(_ chat: PostgresChatService, prefix: String, count: Int) async throws -> [String] {
        var ids: [String] = []
        for index in 1...count {
            ids.append(try #require(try await chat.send(sender: me, roomId: "grp-team", text: "\(prefix)\(index)", clientMessageId: "\(prefix)\(index)").value.id))
        }
        return ids
    }
}
