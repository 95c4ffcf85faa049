import Jansson
import MailDomain
import SwitchboardCore
import Synchronization
import Testing

/// The `state` a write answers with is read inside the write's own transaction: a change another
/// writer commits right after the write is after that state, so the client's next `mail.changes`
/// reports it. (Read in a second transaction, the state would already include that change, and the
/// client would never hear of it.)
@Suite("Write answers carry the state of their own transaction", .postgresStores)
struct WriteStateTests {
    @Test("a change another writer commits right after a write is reported by changes since the write's state",
          arguments: MailBackend.allCases)
    func interleavedWriter(backend: MailBackend) async throws {
        let mail = InterleavingMail(base: try await backend.make(messages: 20), otherUID: "m000003")
        let client = MailRPCClient(try mailDispatcher(mail))
        let writes: [(String, JSONValue)] = [
            ("mail.send", ["to": "bob@example.com", "subject": "Hi", "text": "Hello"]),
            ("mail.markRead", ["uids": ["m000001"], "read": false]),
            ("mail.markRead", ["uids": ["m000001"], "read": true]),
            ("mail.move", ["uids": ["m000002"], "folder": "Trash"]),
        ]
        for (method, params) in writes {
            let answer = try await client.result(method, params)
            let state = try #require(answer["state"]?.stringValue)
            let changes = try await client.result("mail.changes", ["sinceState": .string(state)])
            #expect(changes["updated"]?.arrayValue?.contains("m000003") == true,
                    "\(method): the change committed after the write is missing from changes since \(state)")
        }
        #expect(mail.interleaved == writes.count)
    }
}

/// Forwards to `base`; right after each write returns, another writer flips the read flag of
/// `otherUID` — what another connection committing between the write and a later state read does.
final class InterleavingMail: MailServiceWrapper {
    let base: any MailService
    let otherUID: String
    private let count = Mutex(0)

    init(base: any MailService, otherUID: String) {
        self.base = base
        self.otherUID = otherUID
    }

    var interleaved: Int { count.withLock { $0 } }

    private func interleave() async throws {
        let read = try await base.message(account: DemoAccount.email, uid: otherUID)?.read ?? false
        _ = try await base.markRead(account: DemoAccount.email, uids: [otherUID], read: !read)
        count.withLock { $0 += 1 }
    }

    func send(account: String, _ message: MailDraft) async throws -> Committed<Message> {
        let result = try await base.send(account: account, message)
        try await interleave()
        return result
    }

    func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]> {
        let result = try await base.markRead(account: account, uids: uids, read: read)
        try await interleave()
        return result
    }

    func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]> {
        let result = try await base.move(account: account, uids: uids, to: folder)
        try await interleave()
        return result
    }
}
