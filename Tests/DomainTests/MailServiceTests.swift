import DomainMethods
import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import Testing

/// The shared suite: every scenario runs against both services, which must answer alike.
@Suite("Mail services", .postgresStores)
struct MailServiceTests {
    let me = DemoAccount.email

    /// Every conversation of a folder, walking the cursor `limit` at a time.
    func walk(_ mail: any MailService, _ folder: Folder = .inbox, unreadOnly: Bool = false, limit: Int = 7) async throws -> [Conversation] {
        var all: [Conversation] = []
        var cursor: String?
        repeat {
            let page = try await mail.conversations(account: me, folder: folder, unreadOnly: unreadOnly, page: PageRequest(cursor: cursor, limit: limit))
            #expect(page.items.count <= limit)
            all += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return all
    }

    func record(_ uid: String, from: String = "zoe@example.org", subject: String = "Hello", text: String = "Hi there.",
                replyTo: String? = nil, at time: String = "2025-12-31T12:00:00Z") -> ImportRecord {
        ImportRecord(uid: uid, message: MailDraft(from: from, to: [me], subject: subject, text: text, inReplyTo: replyTo),
                     time: Timestamp.parse(time)!)
    }

    @Test("the drawer lists the five folders and counts every demo message once", arguments: MailBackend.allCases)
    func drawer(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 150)
        let folders = try await mail.folders(account: me)
        #expect(folders.map(\.name) == [.inbox, .sent, .drafts, .archive, .trash])
        #expect(folders.map(\.total).reduce(0, +) == 150)
        #expect(folders[0].unread > 0 && folders[0].unread < folders[0].total)
        #expect(folders[1].unread == 0)
        for folder in folders {
            let conversations = try await walk(mail, folder.name)
            #expect(conversations.map(\.messageCount).reduce(0, +) == folder.total)
            #expect(conversations.map(\.unreadCount).reduce(0, +) == folder.unread)
        }
        let stranger = try await mail.folders(account: "nobody@example.org")
        #expect(stranger.allSatisfy { $0.total == 0 && $0.unread == 0 })
    }

    @Test("the listing serves every conversation once, newest activity first", arguments: MailBackend.allCases)
    func listingOrder(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let all = try await walk(mail, limit: 7)
        #expect(Set(all.map(\.threadId)).count == all.count)
        let dates = all.map(\.latest.date)
        #expect(dates == dates.sorted(by: >))
        let single = try await mail.conversations(account: me, folder: .inbox, unreadOnly: false, page: PageRequest(limit: 500))
        #expect(single.items == all)
        #expect(single.nextCursor == nil)
        #expect(all.allSatisfy { !$0.participants.contains(me) && $0.latest.snippet.count <= 120 })
    }

    @Test("unreadOnly lists exactly the conversations with unread mail", arguments: MailBackend.allCases)
    func unreadOnly(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let unread = try await walk(mail, unreadOnly: true, limit: 3)
        #expect(!unread.isEmpty)
        #expect(unread == (try await walk(mail)).filter { $0.unreadCount > 0 })
    }

    @Test("a thread lists its messages oldest first, with full text, across folders", arguments: MailBackend.allCases)
    func threadOrder(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let longest = try #require(try await walk(mail, .inbox).max { $0.messageCount < $1.messageCount })
        let thread = try #require(try await mail.thread(account: me, threadId: longest.threadId, page: PageRequest()))
        #expect(thread.messages.first?.uid == longest.threadId)
        #expect(thread.messages.map(\.date) == thread.messages.map(\.date).sorted())
        #expect(thread.messages.count >= longest.messageCount)
        #expect(Set(thread.messages.map(\.folder)).count >= 1)
        for (parent, reply) in zip(thread.messages, thread.messages.dropFirst()) { #expect(reply.inReplyTo == parent.uid) }
        let latest = try #require(try await mail.message(account: me, uid: longest.latest.uid))
        #expect(latest.text.count >= longest.latest.snippet.count - 1)
        #expect(try await mail.thread(account: me, threadId: "nope", page: PageRequest()) == nil)
        #expect(try await mail.message(account: me, uid: "nope") == nil)
    }

    @Test("a reply imported before its parent joins the parent's conversation when the parent arrives", arguments: MailBackend.allCases)
    func childBeforeParent(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 0)
        _ = try await mail.importMessages(account: me, [
            record("c2", subject: "Re: Re: Plans", replyTo: "c1", at: "2025-12-31T12:02:00Z"),
            record("c1", subject: "Re: Plans", replyTo: "c0", at: "2025-12-31T12:01:00Z"),
        ])
        #expect(try await walk(mail).map(\.threadId) == ["c1"])
        let before = try await mail.state()
        _ = try await mail.importMessages(account: me, [record("c0", subject: "Plans", at: "2025-12-31T12:00:00Z")])
        let conversations = try await walk(mail)
        #expect(conversations.map(\.threadId) == ["c0"])
        #expect(conversations.first?.messageCount == 3)
        #expect(conversations.first?.subject == "Plans")
        #expect(try await mail.thread(account: me, threadId: "c0", page: PageRequest())?.messages.map(\.uid) == ["c0", "c1", "c2"])
        #expect(try await mail.thread(account: me, threadId: "c1", page: PageRequest()) == nil)
        let changes = try await mail.changes(account: me, since: before, limit: 50)
        #expect(changes.created == ["c0"])
        #expect(changes.updated == ["c1", "c2"])
    }

    @Test("conversations arriving or changing between two page requests are neither skipped nor repeated", arguments: MailBackend.allCases)
    func stablePagination(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let expected = try await walk(mail, limit: 500).map(\.threadId)
        let first = try await mail.conversations(account: me, folder: .inbox, unreadOnly: false, page: PageRequest(limit: 5))
        // A reply arrives in a conversation not served yet (it jumps to the top), a new one starts,
        // and one not served yet is read.
        let later = try await walk(mail, limit: 500)[12]
        _ = try await mail.importMessages(account: me, [
            record("late-reply", replyTo: later.latest.uid, at: "2026-01-01T08:59:00Z"),
            record("brand-new", subject: "New", at: "2026-01-01T08:59:30Z"),
        ])
        _ = try await mail.markRead(account: me, uids: [(try await walk(mail, limit: 500))[20].latest.uid], read: true)
        var served = first.items.map(\.threadId)
        var cursor = first.nextCursor
        while let next = cursor {
            let page = try await mail.conversations(account: me, folder: .inbox, unreadOnly: false, page: PageRequest(cursor: next, limit: 5))
            served += page.items.map(\.threadId)
            cursor = page.nextCursor
        }
        #expect(served == expected)
        let fresh = try await walk(mail, limit: 500)
        #expect(fresh.prefix(2).map(\.threadId) == ["brand-new", later.threadId])
    }

    @Test("a cursor is refused by another folder, another filter and another account", arguments: MailBackend.allCases)
    func foreignCursor(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let cursor = try #require(try await mail.conversations(account: me, folder: .inbox, unreadOnly: false, page: PageRequest(limit: 2)).nextCursor)
        for (account, folder, unread) in [(me, Folder.archive, false), (me, .inbox, true), ("other@example.org", .inbox, false)] {
            await #expect(throws: JSONFieldError.self) {
                _ = try await mail.conversations(account: account, folder: folder, unreadOnly: unread, page: PageRequest(cursor: cursor, limit: 2))
            }
        }
    }

    @Test("sending a reply stores it in Sent, threaded, with a sequential uid and the clock's date", arguments: MailBackend.allCases)
    func sendReply(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let conversation = try #require(try await walk(mail).first)
        let sentBefore = try await mail.folders(account: me)[1].total
        let reply = MailDraft(from: me, to: [conversation.latest.from], subject: "Re: \(conversation.subject)", text: "On it.",
                                    inReplyTo: conversation.latest.uid)
        let sent = try await mail.send(account: me, reply).value
        #expect(sent.uid == "s1" && sent.folder == .sent && sent.read && sent.threadId == conversation.threadId)
        #expect(sent.date == "2026-01-01T09:00:00Z")
        #expect(try await mail.folders(account: me)[1].total == sentBefore + 1)
        #expect(try await mail.thread(account: me, threadId: conversation.threadId, page: PageRequest())?.messages.last == sent)
        #expect(try await walk(mail, .sent).first?.threadId == conversation.threadId)
        #expect(try await walk(mail).first == conversation)
        let fresh = try await mail.send(account: me, MailDraft(from: me, to: ["x@example.org"], subject: "Hi", text: "New.")).value
        #expect(fresh.uid == "s2" && fresh.threadId == "s2" && fresh.inReplyTo == nil)
        await #expect(throws: ServiceError.notFound(kind: "message", id: "nope")) {
            _ = try await mail.send(account: me, MailDraft(from: me, to: ["x@example.org"], subject: "", text: "", inReplyTo: "nope"))
        }
    }

    @Test("markRead and move change counts and are reported by changes; no-ops are not", arguments: MailBackend.allCases)
    func changesAfterWrites(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let state = try await mail.state()
        let unread = try #require(try await walk(mail, unreadOnly: true).first)
        let inbox = try await mail.folders(account: me)[0]
        #expect(try await mail.markRead(account: me, uids: [unread.latest.uid, unread.latest.uid], read: true).value == [unread.latest.uid])
        #expect(try await mail.markRead(account: me, uids: [unread.latest.uid], read: true).value == [])
        #expect(try await mail.folders(account: me)[0].unread == inbox.unread - 1)
        #expect(try await mail.move(account: me, uids: [unread.threadId], to: .archive).value == [unread.threadId])
        #expect(try await mail.move(account: me, uids: [unread.threadId], to: .archive).value == [])
        let folders = try await mail.folders(account: me)
        #expect(folders[0].total == inbox.total - 1 && folders[3].total >= 1)
        let changes = try await mail.changes(account: me, since: state, limit: 50)
        #expect(changes.created == [])
        #expect(Set(changes.updated) == Set([unread.latest.uid, unread.threadId]))
        #expect(changes.newState == (try await mail.state()) && !changes.hasMoreChanges)
        #expect(try await mail.changes(account: me, since: changes.newState, limit: 50).updated == [])
        await #expect(throws: ServiceError.notFound(kind: "message", id: "nope")) {
            _ = try await mail.markRead(account: me, uids: [unread.latest.uid, "nope"], read: false)
        }
        #expect(try await mail.message(account: me, uid: unread.latest.uid)?.read == true)
    }

    @Test("changes are per account: another account's sends and reads never show up", arguments: MailBackend.allCases)
    func changesPerAccount(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 10)
        let other = "ada@example.com"
        _ = try await mail.login(email: other)
        let state = try await mail.state()
        let theirs = try await mail.send(account: other, MailDraft(from: other, to: ["bob@example.com"], subject: "theirs", text: "x")).value
        let mine = try await mail.send(account: me, MailDraft(from: me, to: ["bob@example.com"], subject: "mine", text: "y")).value
        #expect(try await mail.changes(account: me, since: state, limit: 50).created == [mine.uid])
        #expect(try await mail.changes(account: other, since: state, limit: 50).created == [theirs.uid])
    }

    @Test("an unknown, foreign or future state is -32010 and says to reload", arguments: MailBackend.allCases)
    func badStates(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 10)
        for state in ["bogus", "feed-0", "mail-zz", "mail-"] {
            do {
                _ = try await mail.changes(account: me, since: state, limit: 10)
                Issue.record("\(state) was accepted")
            } catch let error as ServiceError {
                guard case .cannotCalculateChanges(state, _) = error else { Issue.record("\(error)"); continue }
                #expect(ResponseError(service: error).code == .stateMismatch)
                #expect(ResponseError(service: error).message.contains("reload"))
            }
        }
    }

    @Test("search ranks a subject hit before a text-only hit, then newer first", arguments: MailBackend.allCases)
    func searchRanking(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 50)
        _ = try await mail.importMessages(account: me, [
            record("body-new", subject: "Weekend", text: "We could fly to Zanzibar.", at: "2025-12-31T10:00:00Z"),
            record("subject", subject: "Zanzibar itinerary", text: "Attached.", at: "2025-12-01T10:00:00Z"),
            record("body-old", subject: "Ideas", text: "zanzibar, maybe?", at: "2025-11-01T10:00:00Z"),
        ])
        let page = try await mail.search(account: me, query: "ZANZIBAR", page: PageRequest())
        #expect(page.items.map(\.uid) == ["subject", "body-new", "body-old"])
        #expect(page.items.map(\.score) == [4, 1, 1])
        #expect(page.nextCursor == nil)
        let both = try await mail.search(account: me, query: "zanzibar itinerary", page: PageRequest())
        #expect(both.items.map(\.uid) == ["subject"])
        let sender = try await mail.search(account: me, query: "zoe", page: PageRequest())
        #expect(sender.items.count == 3 && sender.items.allSatisfy { $0.score == 2 })
    }

    @Test("search pages through every hit once, best first", arguments: MailBackend.allCases)
    func searchPages(backend: MailBackend) async throws {
        let mail = try await backend.make()
        let all = try await mail.search(account: me, query: "the", page: PageRequest(limit: 500))
        #expect(all.items.count > 10)
        var served: [SearchHit] = []
        var cursor: String?
        repeat {
            let page = try await mail.search(account: me, query: "the", page: PageRequest(cursor: cursor, limit: 4))
            served += page.items
            cursor = page.nextCursor
        } while cursor != nil
        #expect(served == all.items)
        #expect(served.map(\.score) == served.map(\.score).sorted(by: >))
        let cursorOfThe = try #require(try await mail.search(account: me, query: "the", page: PageRequest(limit: 1)).nextCursor)
        await #expect(throws: JSONFieldError.self) {
            _ = try await mail.search(account: me, query: "lunch", page: PageRequest(cursor: cursorOfThe, limit: 1))
        }
    }

    @Test("any query text is safe: quotes, operators, stars, unicode", arguments: MailBackend.allCases)
    func hostileSearch(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 60)
        let queries = ["\"", "\"\"", "*", "lunch*", "NEAR(", "NEAR(lunch invoice, 2)", "AND", "a OR b NOT c", "subject:lunch",
                       "{subject}: x", "'; DROP TABLE mail_message; --", "(((", "-lunch", "^lunch", "日本語 ünïcødé", "🙂",
                       "\u{0}", "   ", "", "col : \"x\"", String(repeating: "lunch ", count: 40)]
        for query in queries {
            let page = try await mail.search(account: me, query: query, page: PageRequest())
            #expect(page.items.allSatisfy { $0.score > 0 }, "query \(query)")
        }
        // Operators are words: `NEAR(lunch` is the phrase "near lunch", as `near-lunch` is.
        #expect(try await mail.search(account: me, query: "NEAR(lunch", page: PageRequest()).items
                == (try await mail.search(account: me, query: "near-lunch", page: PageRequest())).items)
        #expect(try await mail.search(account: me, query: "\"Lunch*", page: PageRequest()).items
                == (try await mail.search(account: me, query: "lunch", page: PageRequest())).items)
        #expect(!(try await mail.search(account: me, query: "\"Lunch*", page: PageRequest())).items.isEmpty)
    }

    @Test("importing the same records twice adds nothing the second time", arguments: MailBackend.allCases)
    func importIdempotent(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 20)
        let records = [record("i1"), record("i2", replyTo: "i1"), record("i1")]
        let first = try await mail.importMessages(account: me, records)
        #expect(first.imported == ["i1", "i2"] && first.skipped == ["i1"])
        let state = try await mail.state()
        let second = try await mail.importMessages(account: me, records)
        #expect(second.imported == [] && second.skipped == ["i1", "i2", "i1"])
        #expect(try await mail.state() == state)
        #expect(try await mail.thread(account: me, threadId: "i1", page: PageRequest())?.messages.count == 2)
    }

    @Test("login creates an account once and keeps the demo account's name", arguments: MailBackend.allCases)
    func login(backend: MailBackend) async throws {
        let mail = try await backend.make(messages: 5)
        #expect(try await mail.login(email: "new@example.org") == LoginOutcome(account: Account(email: "new@example.org"), created: true))
        #expect(try await mail.login(email: "new@example.org").created == false)
        #expect(try await mail.login(email: me) == LoginOutcome(account: Account(email: me, name: DemoAccount.name), created: false))
        #expect(try await mail.folders(account: "new@example.org").allSatisfy { $0.total == 0 })
    }
}
