import MailDomain
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Testing

/// What only PostgreSQL adds to the shared mail suites: several hosts (stores) writing one database.
@Suite("Mail on PostgreSQL", .postgresStores, .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresMailTests {
    let me = DemoAccount.email

    /// Two services on one database, as two hosts: the demo data, then a second pool.
    func twoHosts(messages: Int = 20) async throws -> (PostgresMailService, PostgresMailService) {
        let store = try await PostgresTestStores.open(migrations: [PostgresMailService.migrations])
        try await store.write { try await PostgresMailService.seed($0, clock: mailTestClock, messages: messages, logger: TestPostgres.logger) }
        let other = try await PostgresStores.another(store, migrations: [PostgresMailService.migrations])
        return (PostgresMailService(store: store, clock: mailTestClock), PostgresMailService(store: other, clock: mailTestClock))
    }

    @Test("sends from two hosts at once each get their own uid, and every one is counted and reported once")
    func concurrentSends() async throws {
        let (a, b) = try await twoHosts()
        let before = try await a.state()
        let sentBefore = try await a.folders(account: me)[1].total
        let uids = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<24 {
                let host = index.isMultiple(of: 2) ? a : b
                group.addTask {
                    try await host.send(account: DemoAccount.email, MailDraft(from: DemoAccount.email, to: ["ann@example.org"],
                                                                           subject: "Hi \(index)", text: "Hello"))
                        .value.uid
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(uids) == Set((1...24).map { "s\($0)" }))
        #expect(try await b.folders(account: me)[1].total == sentBefore + 24)
        let changes = try await b.changes(account: me, since: before, limit: 100)
        #expect(Set(changes.created) == Set(uids) && changes.created.count == 24)
    }

    @Test("marks, moves and imports from two hosts at once keep the drawer's counts equal to the listing's")
    func concurrentWrites() async throws {
        let (a, b) = try await twoHosts(messages: 60)
        let inbox = try await a.conversations(account: me, folder: .inbox, unreadOnly: false, page: PageRequest(limit: 500)).items
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, conversation) in inbox.enumerated() {
                let host = index.isMultiple(of: 2) ? a : b
                group.addTask {
                    _ = try await host.markRead(account: DemoAccount.email, uids: [conversation.latest.uid], read: index % 3 == 0)
                    if index % 4 == 0 { _ = try await host.move(account: DemoAccount.email, uids: [conversation.latest.uid], to: .archive) }
                    _ = try await host.importMessages(account: DemoAccount.email, [ImportRecord(
                        uid: "r\(index)", message: MailDraft(from: "zoe@example.org", to: [DemoAccount.email], subject: "Re",
                                                             text: "reply", inReplyTo: conversation.latest.uid),
                        time: mailTestClock.now() - Int64(index))])
                }
            }
            try await group.waitForAll()
        }
        for folder in try await a.folders(account: me) {
            let listed = try await b.conversations(account: me, folder: folder.name, unreadOnly: false, page: PageRequest(limit: 500)).items
            #expect(listed.map(\.messageCount).reduce(0, +) == folder.total, "\(folder.name)")
            #expect(listed.map(\.unreadCount).reduce(0, +) == folder.unread, "\(folder.name)")
        }
    }

    /// The planner picks the account's index for a mailbox this small (400 messages of one account), so the
    /// plan looked at is the search's `LIKE` alone, with sequential scans off: it shows the folded columns'
    /// trigram indexes can serve it (right operator class, right columns).
    @Test("the folded columns' trigram indexes can serve search's LIKE, not only a scan of every message")
    func searchUsesIndex() async throws {
        let store = try await PostgresTestStores.open(migrations: [PostgresMailService.migrations])
        try await store.write { connection in
            try await PostgresMailService.seed(connection, clock: mailTestClock, messages: 400, logger: TestPostgres.logger)
            try await connection.query("ANALYZE mail_message", logger: TestPostgres.logger)
        }
        let plan = try await store.write { connection in
            try await connection.query("SET LOCAL enable_seqscan = off", logger: TestPostgres.logger)
            var lines: [String] = []
            let rows = try await connection.query(
                "EXPLAIN SELECT uid FROM mail_message WHERE search_subject LIKE \("% lunch %") OR search_body LIKE \("% lunch %")",
                logger: TestPostgres.logger)
            for try await line in rows.decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
        #expect(plan.contains("mail_message_search_subject") && plan.contains("mail_message_search_body"), "\(plan)")
    }
}
