import MailDomain
import SwitchboardCore
import Testing

/// Both services, fed the same operations, give the same answers: the same script runs against each
/// and every answer is compared.
@Suite("Mail services answer alike", .postgresStores)
struct MailEquivalenceTests {
    let me = DemoAccount.email

    /// Runs a fixed script of reads and writes; returns every answer as text.
    func script(_ mail: any MailService) async throws -> [String] {
        var log: [String] = []
        func note(_ label: String, _ value: Any) { log.append("\(label): \(value)") }
        note("state", try await mail.state())
        note("folders", try await mail.folders(account: me))
        for folder in Folder.allCases {
            var cursor: String?
            repeat {
                let page = try await mail.conversations(account: me, folder: folder, unreadOnly: false, page: PageRequest(cursor: cursor, limit: 9))
                note("list \(folder)", page.items)
                note("cursor \(folder)", page.nextCursor ?? "end")
                cursor = page.nextCursor
            } while cursor != nil
        }
        let inbox = try await mail.conversations(account: me, folder: .inbox, unreadOnly: false, page: PageRequest(limit: 500)).items
        for conversation in inbox.prefix(5) { note("thread", try await mail.thread(account: me, threadId: conversation.threadId, page: PageRequest()) as Any) }
        let first = try await mail.conversations(account: me, folder: .inbox, unreadOnly: true, page: PageRequest(limit: 4))
        note("unread page", first.items)
        note("send", try await mail.send(account: me, MailDraft(from: me, to: [inbox[3].latest.from], cc: ["cc@example.org"],
                                                                    subject: "Re: x", text: "Reply", inReplyTo: inbox[3].latest.uid)))
        note("import", try await mail.importMessages(account: me, [
            ImportRecord(uid: "k2", message: MailDraft(from: "a@example.org", to: [me], subject: "Re: K", text: "child", inReplyTo: "k1"),
                         time: Timestamp.parse("2025-12-31T23:00:00Z")!),
            ImportRecord(uid: "k1", message: MailDraft(from: me, to: ["a@example.org"], subject: "K", text: "root"),
                         time: Timestamp.parse("2025-12-31T22:00:00Z")!),
            ImportRecord(uid: "k3", message: MailDraft(from: "b@example.org", to: [me], subject: "Re: x", text: "late",
                                                             inReplyTo: inbox[7].latest.uid), time: Timestamp.parse("2026-01-01T08:00:00Z")!),
        ]))
        note("markRead", try await mail.markRead(account: me, uids: inbox.prefix(6).map(\.latest.uid), read: false))
        note("move", try await mail.move(account: me, uids: [inbox[1].latest.uid, "k2"], to: .trash))
        var cursor = first.nextCursor
        while let next = cursor {
            let page = try await mail.conversations(account: me, folder: .inbox, unreadOnly: true, page: PageRequest(cursor: next, limit: 4))
            note("unread page", page.items)
            cursor = page.nextCursor
        }
        note("folders", try await mail.folders(account: me))
        for folder in Folder.allCases {
            note("list \(folder)", try await mail.conversations(account: me, folder: folder, unreadOnly: false, page: PageRequest(limit: 500)).items)
        }
        for query in ["lunch", "invoice paid", "ada", "k root", "re", "NEAR(\"x*"] {
            note("search \(query)", try await mail.search(account: me, query: query, page: PageRequest(limit: 500)).items)
        }
        note("changes", try await mail.changes(account: me, since: "mail-0", limit: 500))
        note("changes small", try await mail.changes(account: me, since: "mail-0", limit: 3))
        note("state", try await mail.state())
        return log
    }

    @Test("the same script gives the same answers from the in-memory service and each SQL one",
          arguments: [MailBackend.sqlite, .postgres])
    func sameAnswers(backend: MailBackend) async throws {
        let memory = try await script(try await MailBackend.memory.make(messages: 200))
        let other = try await script(try await backend.make(messages: 200))
        #expect(memory.count == other.count)
        for (a, b) in zip(memory, other) where a != b {
            Issue.record("in memory: \(a.prefix(600))\nin \(backend):  \(b.prefix(600))")
            break
        }
    }

    @Test("the demo mailbox is the same on every run with the same clock")
    func deterministic() async throws {
        let a = try await script(try await MailBackend.memory.make(messages: 120))
        let b = try await script(try await MailBackend.memory.make(messages: 120))
        #expect(a == b)
    }
}
