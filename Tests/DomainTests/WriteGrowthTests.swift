import CalendarDomain
import ChatDomain
import GRDB
import Jansson
import JSONRPC
import Logging
import MailDomain
import SchemaTesting
import SwitchboardCore
import SwitchboardHost
import SwitchboardStorage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a write costs does not grow with what is stored: the SQLite steps one request runs (rows
/// visited, counted by ``SQLiteStepCounter``, not timed) with thousands more rows stored are within
/// 1.2x of what it ran before them.
@Suite("Write cost does not grow with the data", .serialized, .timeLimit(.minutes(5)))
struct WriteGrowthTests {
    /// The median steps of `count` calls of `call` (each waits for what it waits for).
    static func medianSteps(_ count: Int = 9, _ call: (Int) async throws -> Void) async rethrows -> Int {
        var steps: [Int] = []
        for index in 0..<count {
            let before = SQLiteStepCounter.total
            try await call(index)
            steps.append(SQLiteStepCounter.total - before)
        }
        return steps.sorted()[count / 2]
    }

    @Test("chat.send, answer and chat.messageState, runs as many steps with 20,000 more messages in its room")
    func chatSend() async throws {
        let folder = try TestScratch.folder("growth-chat")
        defer { _ = system("rm -rf '\(folder)'") }
        SQLiteStepCounter.watch(folder: folder, name: "chat.sqlite")
        let clock = ChatServiceTests.clock
        let database = try AppDatabase(path: folder + "/chat.sqlite", migrations: SQLiteChatService.migrations,
                                       prepare: { database in try database.writer.write { try SQLiteChatService.seed($0, clock: clock) } })
        let dispatcher = try MethodRegistry.chatMethods(SQLiteChatService(database: database, clock: clock)).freeze()
        let notices = NoticeBox()
        func send(_ id: String) async throws {
            let outcome = await InProcessCall.call("chat.send", params: ["roomId": "grp-team", "text": "grows?", "clientMessageId": .string(id)],
                                                   dispatcher: dispatcher, logger: Logger(label: "test")) { notices.add($0) }
            #expect(outcome.result?["message"]?["state"] == "pending", "\(outcome.response)")
            let notice = try await notices.next()
            #expect(notice["params"]?["state"] == "sent", "\(notice)")
        }
        let before = try await Self.medianSteps { try await send("a\($0)") }
        // Unread by the sender (`u0` read the room up to a demo message): a room view would count them.
        try await database.writer.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO chat_message(room_id, sender_id, text, sent_at) VALUES ('grp-team', 'u1', 'filler', 0)")
            for _ in 0..<20_000 { try insert.execute() }
        }
        let after = try await Self.medianSteps { try await send("b\($0)") }
        #expect(before > 0)
        #expect(Double(after) <= Double(before) * 1.2, "steps per chat.send: \(before) before, \(after) with 20,000 more messages")
    }

    /// A database file `name` in a new folder, counted from its first connection; the caller removes the folder.
    static func countedDatabase(_ name: String, migrations: [DatabaseMigration], seed: @escaping (Database) throws -> Void) throws
        -> (AppDatabase, folder: String) {
        let folder = try TestScratch.folder("growth-\(name)")
        SQLiteStepCounter.watch(folder: folder, name: name + ".sqlite")
        let database = try AppDatabase(path: folder + "/\(name).sqlite", migrations: migrations,
                                       prepare: { database in try database.writer.write(seed) })
        return (database, folder)
    }

    @Test("mail.send runs as many steps in a mailbox of 10,150 messages as in one of 150")
    func mailSend() async throws {
        func steps(messages: Int) async throws -> Int {
            let (database, folder) = try Self.countedDatabase("mail\(messages)", migrations: SQLiteMailService.migrations) { db in
                try SQLiteMailService.seed(db, clock: mailTestClock, messages: messages)
            }
            defer { _ = system("rm -rf '\(folder)'") }
            let service = SQLiteMailService(database: database, clock: mailTestClock)
            let dispatcher = try MethodRegistry.mailMethods(service, defaultAccount: DemoAccount.email, clock: mailTestClock).freeze()
            return await Self.medianSteps { index in
                let outcome = await InProcessCall.call("mail.send", params: ["to": "grace@example.com", "subject": .string("Growth \(index)"), "text": "Does it grow?"],
                                                       dispatcher: dispatcher, logger: Logger(label: "test"))
                #expect(outcome.result?["message"]?["folder"] == "Sent", "\(outcome.response)")
            }
        }
        let small = try await steps(messages: 150)
        let large = try await steps(messages: 10_150)
        #expect(small > 0)
        #expect(Double(large) <= Double(small) * 1.2, "steps per mail.send: \(small) with 150 messages, \(large) with 10,150")
    }

    @Test("calendar.create runs as many steps in a calendar of 10,000 more events")
    func calendarCreate() async throws {
        let today = CalendarDate(utcMilliseconds: mailTestClock.now())
        func steps(extra: Int) async throws -> Int {
            let events = DemoCalendar.events(around: today, extra: extra)
            let (database, folder) = try Self.countedDatabase("calendar\(extra)", migrations: SQLiteCalendarService.migrations) { db in
                try SQLiteCalendarService.seed(db, events: events)
            }
            defer { _ = system("rm -rf '\(folder)'") }
            let context = CalendarContext(calendar: SQLiteCalendarService(database: database), clock: mailTestClock, defaultZone: "Europe/Berlin")
            let dispatcher = try MethodRegistry.calendarMethods(context).freeze()
            return await Self.medianSteps { index in
                let outcome = await InProcessCall.call("calendar.create", params: ["title": .string("Growth \(index)"), "start": "2026-01-02T10:00:00",
                                                                                   "timeZone": "Europe/Berlin", "duration": "PT1H"],
                                                       dispatcher: dispatcher, logger: Logger(label: "test"))
                #expect(outcome.result?["created"] == true, "\(outcome.response)")
            }
        }
        let small = try await steps(extra: 0)
        let large = try await steps(extra: 10_000)
        #expect(small > 0)
        #expect(Double(large) <= Double(small) * 1.2, "steps per calendar.create: \(small) with the fixed demo events, \(large) with 10,000 more")
    }
}
