import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import SwitchboardHost
import Testing

/// The mail methods through the JSON-RPC layer, in process: params, errors, sessions, results. Those
/// that read or write the mailbox run on every backend (``dispatcher(_:)``), the method layer's own
/// checks in memory.
@Suite("Mail methods", .postgresStores)
struct MailMethodsTests {
    let mail: any MailService
    let dispatcher: Dispatcher

    init() throws {
        mail = InMemoryMailService(clock: mailTestClock)
        dispatcher = try mailDispatcher(mail)
    }

    /// The methods of `backend`'s demo mailbox (the in-memory service's count of demo messages).
    static func dispatcher(_ backend: MailBackend) async throws -> Dispatcher {
        try mailDispatcher(try await backend.make(messages: DemoMail.defaultCount))
    }

    @Test("mail.login refuses a malformed email naming email, and an empty password naming password",
          arguments: ["", "plain", "a@b", "a@@b.com", "a b@example.com", "@example.com", "name@example.c", "name@-.com.", "x@y..com"])
    func loginValidation(email: String) async throws {
        let client = MailRPCClient(dispatcher)
        let error = try await client.error("mail.login", ["email": .string(email), "password": "secret"])
        #expect(error["code"] == -32602)
        #expect(error["data"]?["field"] == "email")
        #expect(error["data"]?["expected"] == "an email address like name@example.com")
        #expect(error["data"]?["got"] == .string(JSONValue.string(email).jsonText()))
    }

    @Test("mail.login takes any non-empty password, creates the account once, and lower-cases the address", arguments: MailBackend.allCases)
    func login(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let empty = try await client.error("mail.login", ["email": "tom@gmail.com", "password": ""])
        #expect(empty["data"]?["field"] == "password")
        #expect(try await client.error("mail.login", ["email": "tom@gmail.com"])["data"]?["field"] == "password")
        let first = try await client.result("mail.login", ["email": " Tom@Gmail.com ", "password": "x"])
        #expect(first == ["account": ["email": "tom@gmail.com", "name": nil], "created": true])
        #expect(try await client.result("mail.login", ["email": "tom@gmail.com", "password": "y"])["created"] == false)
    }

    @Test("a bare inbox.list works from a shell: the default account, first page of the Inbox", arguments: MailBackend.allCases)
    func defaultAccount(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let result = try await client.result("inbox.list")
        #expect(result.objectValue?.keys == ["items", "nextCursor", "hasMore", "state"])
        #expect(result["hasMore"] == true)
        #expect(result["items"]?.arrayValue?.count == 50)
        #expect(result["nextCursor"]?.stringValue != nil)
        #expect(result["state"] == "mail-0")
        let item = try #require(result["items"]?.arrayValue?.first)
        #expect(item.objectValue?.keys == ["threadId", "subject", "participants", "messageCount", "unreadCount", "latest"])
        #expect(item["latest"]?.objectValue?.keys == ["uid", "from", "snippet", "date"])
    }

    @Test("without a login or a default account, mail methods fail with -32001 pointing at mail.login", arguments: MailBackend.allCases)
    func notSignedIn(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(), defaultAccount: nil))
        let error = try await client.error("inbox.list")
        #expect(error["code"] == -32001)
        #expect(error["data"]?["method"] == "mail.login")
        _ = try await client.result("mail.login", ["email": "solo@example.org", "password": "x"])
        #expect(try await client.result("inbox.list")["items"] == [])
    }

    @Test("a login binds its own connection only", arguments: MailBackend.allCases)
    func sessionPerConnection(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let alice = MailRPCClient(dispatcher)
        let other = MailRPCClient(dispatcher)
        _ = try await alice.result("mail.login", ["email": "alice@example.org", "password": "x"])
        _ = try await alice.result("mail.send", ["to": "bob@example.org", "subject": "Hi", "text": "Hello Bob"])
        let aliceSent = try await alice.result("inbox.list", ["folder": "sent"])
        #expect(aliceSent["items"]?.strings("threadId") == ["s1"])
        let demoSent = try await other.result("inbox.list", ["folder": "Sent", "limit": 500])
        #expect(demoSent["items"]?.strings("threadId").contains("s1") == false)
        #expect(try await other.result("mail.folders")["folders"]?.arrayValue?.first?["total"] != 0)
        #expect(try await alice.result("mail.folders")["folders"]?.arrayValue?.map { $0["total"]! } == [0, 1, 0, 0, 0])
        #expect(try await other.error("mail.get", ["uid": "s1"])["code"] == -32004)
    }

    @Test("mail.folders is the drawer: five folders in order with total and unread counts", arguments: MailBackend.allCases)
    func folders(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let result = try await MailRPCClient(dispatcher).result("mail.folders")
        let folders = try #require(result["folders"]?.arrayValue)
        #expect(folders.strings("name") == ["Inbox", "Sent", "Drafts", "Archive", "Trash"])
        #expect(folders.map { $0["total"]!.int64Value! }.reduce(0, +) == Int64(DemoMail.defaultCount))
        #expect(folders.allSatisfy { $0.objectValue?.keys == ["name", "total", "unread"] })
        #expect(result["state"] == "mail-0")
    }

    @Test("inbox.list refuses a cursor of another folder or filter, and a malformed one, naming cursor", arguments: MailBackend.allCases)
    func cursors(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let cursor = try #require(try await client.result("inbox.list", ["limit": 3])["nextCursor"])
        for params: JSONValue in [["folder": "Archive", "cursor": cursor], ["unreadOnly": true, "cursor": cursor],
                                  ["cursor": "garbage"], ["cursor": ""], ["cursor": "!!!"], ["cursor": 42]] {
            let error = try await client.error("inbox.list", params)
            #expect(error["code"] == -32602)
            #expect(error["data"]?["field"] == "cursor")
        }
        let foreign = Cursor(list: "feed", sortKey: "", id: "5").encoded
        #expect(try await client.error("inbox.list", ["cursor": .string(foreign)])["data"]?["expected"]?.stringValue?.contains("feed") == true)
        let edited = Cursor(list: "inbox/\(DemoAccount.email)/Inbox/all", sortKey: "x:y", id: "m1").encoded
        #expect(try await client.error("inbox.list", ["cursor": .string(edited)])["data"]?["field"] == "cursor")
        #expect(try await client.result("inbox.list", ["cursor": cursor, "limit": 3])["items"]?.arrayValue?.count == 3)
    }

    @Test("inbox.list validates folder and limit, and takes folder names in any case", arguments: MailBackend.allCases)
    func listParams(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let folder = try await client.error("inbox.list", ["folder": "Spam"])
        #expect(folder["data"] == ["field": "folder", "expected": "one of \"Inbox\", \"Sent\", \"Drafts\", \"Archive\", \"Trash\"", "got": "\"Spam\""])
        #expect(try await client.error("inbox.list", ["limit": 501])["data"]?["field"] == "limit")
        #expect(try await client.error("inbox.list", ["unreadOnly": "yes"])["data"]?["field"] == "unreadOnly")
        let archive = try await client.result("inbox.list", ["folder": "ARCHIVE", "limit": 500])
        #expect(archive["nextCursor"] == .null)
        let unread = try await client.result("inbox.list", ["unreadOnly": true, "limit": 500])
        #expect(unread["items"]?.arrayValue?.allSatisfy { $0["unreadCount"]!.int64Value! > 0 } == true)
    }

    @Test("mail.thread and mail.get answer the conversation and the message, -32004 naming the field when unknown", arguments: MailBackend.allCases)
    func threadAndGet(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let item = try #require(try await client.result("inbox.list", ["limit": 1])["items"]?.arrayValue?.first)
        let thread = try await client.result("mail.thread", ["threadId": item["threadId"]!])
        #expect(thread.objectValue?.keys == ["threadId", "subject", "messages", "state", "nextCursor"])
        #expect(thread["nextCursor"] == .null)
        let messages = try #require(thread["messages"]?.arrayValue)
        #expect(messages.strings("date") == messages.strings("date").sorted())
        #expect(messages.first?.objectValue?.keys == ["uid", "threadId", "folder", "from", "to", "cc", "subject", "text", "inReplyTo", "date", "read"])
        #expect(messages.first?["inReplyTo"] == .null)
        let message = try await client.result("mail.get", ["uid": item["latest"]!["uid"]!])
        #expect(message == messages.last)
        let noThread = try await client.error("mail.thread", ["threadId": "zzz"])
        #expect(noThread["code"] == -32004 && noThread["data"]?["field"] == "threadId")
        let noMessage = try await client.error("mail.get", ["uid": "zzz"])
        #expect(noMessage["code"] == -32004 && noMessage["data"]?["field"] == "uid")
    }

    @Test("mail.send validates every address by its place and threads a reply", arguments: MailBackend.allCases)
    func send(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let bad = try await client.error("mail.send", ["to": ["ok@example.org", "not an address"], "subject": "s", "text": "t"])
        #expect(bad["data"] == ["field": "to[1]", "expected": "an email address like name@example.com", "got": "\"not an address\""])
        #expect(try await client.error("mail.send", ["to": "nope", "subject": "s", "text": "t"])["data"]?["field"] == "to")
        #expect(try await client.error("mail.send", ["to": [], "subject": "s", "text": "t"])["data"]?["field"] == "to")
        #expect(try await client.error("mail.send", ["to": [7], "subject": "s", "text": "t"])["data"]?["field"] == "to[0]")
        #expect(try await client.error("mail.send", ["to": "a@example.org", "cc": ["b@example.org", "c@"], "subject": "s", "text": "t"])["data"]?["field"] == "cc[1]")
        #expect(try await client.error("mail.send", ["to": "a@example.org", "text": "t"])["data"]?["field"] == "subject")
        let unknown = try await client.error("mail.send", ["to": "a@example.org", "subject": "s", "text": "t", "inReplyTo": "zzz"])
        #expect(unknown["code"] == -32004 && unknown["data"]?["field"] == "inReplyTo")

        let item = try #require(try await client.result("inbox.list", ["limit": 1])["items"]?.arrayValue?.first)
        let before = try await client.result("mail.folders")
        let sent = try await client.result("mail.send", ["to": item["latest"]!["from"]!, "subject": "Re: hi", "text": "Sure.",
                                                          "inReplyTo": item["latest"]!["uid"]!])
        #expect(sent["message"]?["uid"] == "s1" && sent["message"]?["folder"] == "Sent" && sent["message"]?["threadId"] == item["threadId"])
        #expect(sent["message"]?["date"] == "2026-01-01T09:00:00Z")
        #expect(sent["state"] != before["state"])
        let after = try await client.result("mail.folders")
        #expect(after["folders"]?.arrayValue?[1]["total"]?.int64Value == before["folders"]!.arrayValue![1]["total"]!.int64Value! + 1)
        let thread = try await client.result("mail.thread", ["threadId": item["threadId"]!])
        #expect(thread["messages"]?.arrayValue?.last?["uid"] == "s1")
        let changes = try await client.result("mail.changes", ["sinceState": before["state"]!])
        #expect(changes == ["created": ["s1"], "updated": [], "destroyed": [], "newState": sent["state"]!, "hasMoreChanges": false])
    }

    @Test("mail.markRead and mail.move report what changed, and mail.changes lists it as updated", arguments: MailBackend.allCases)
    func markReadAndMove(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let list = try await client.result("inbox.list", ["unreadOnly": true, "limit": 2])
        var uids: [JSONValue] = []
        for item in list["items"]?.arrayValue ?? [] {
            let thread = try await client.result("mail.thread", ["threadId": item["threadId"]!])
            uids.append(try #require(thread["messages"]?.arrayValue?.first { $0["read"] == false }?["uid"]))
        }
        try #require(uids.count == 2)
        let read = try await client.result("mail.markRead", ["uids": .array(uids), "read": true])
        #expect(read["updated"] == .array(uids))
        let move = try await client.result("mail.move", ["uids": [uids[0]], "folder": "trash"])
        #expect(move["updated"] == [uids[0]])
        let changes = try await client.result("mail.changes", ["sinceState": list["state"]!])
        #expect(changes["updated"] == .array(uids) && changes["created"] == [] && changes["newState"] == move["state"])
        #expect(try await client.result("mail.get", ["uid": uids[0]])["folder"] == "Trash")

        let badFolder = try await client.error("mail.move", ["uids": [uids[0]], "folder": "Spam"])
        #expect(badFolder["data"]?["field"] == "folder")
        #expect(badFolder["data"]?["expected"]?.stringValue?.contains("\"Archive\"") == true)
        let unknown = try await client.error("mail.markRead", ["uids": [uids[1], "zzz"], "read": false])
        #expect(unknown["code"] == -32004 && unknown["data"]?["field"] == "uids[1]")
        #expect(try await client.result("mail.get", ["uid": uids[1]])["read"] == true)
        #expect(try await client.error("mail.markRead", ["uids": [], "read": true])["data"]?["field"] == "uids")
    }

    @Test("mail.changes with an unknown or too-new state is -32010 telling the client to reload", arguments: MailBackend.allCases)
    func badState(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        for state: JSONValue in ["bogus", "mail-99", "feed-0", "mail--5", "mail-+0", "mail-A"] {
            let error = try await client.error("mail.changes", ["sinceState": state])
            #expect(error["code"] == -32010)
            #expect(error["message"]?.stringValue?.contains("reload") == true)
            // A state no log ever wrote is named as such, never as one older than the log.
            #expect(error["message"]?.stringValue?.contains("older") == false, "\(state): \(error)")
        }
        #expect(try await client.error("mail.changes", ["sinceState": "mail-0", "maxChanges": 0])["data"]?["field"] == "maxChanges")
    }

    @Test("mail.search answers best match first with a cursor, and hostile text is just text", arguments: MailBackend.allCases)
    func search(backend: MailBackend) async throws {
        let dispatcher = try await Self.dispatcher(backend)
        let client = MailRPCClient(dispatcher)
        let page = try await client.result("mail.search", ["query": "lunch", "limit": 3])
        #expect(page.objectValue?.keys == ["items", "nextCursor", "hasMore", "state"])
        let scores = try #require(page["items"]?.arrayValue?.map { $0["score"]!.int64Value! })
        #expect(scores == scores.sorted(by: >) && !scores.isEmpty)
        let next = try await client.result("mail.search", ["query": "lunch", "limit": 3, "cursor": page["nextCursor"]!])
        #expect(Set(next["items"]!.strings("uid")).isDisjoint(with: page["items"]!.strings("uid")))
        #expect(try await client.error("mail.search", ["query": "invoice", "cursor": page["nextCursor"]!])["data"]?["field"] == "cursor")
        for query in ["\"", "NEAR(", "*", "a\" OR \"b", "ü日本🙂", "(", "col:"] {
            let result = try await client.result("mail.search", ["query": .string(query)])
            #expect(result["nextCursor"] != nil)
        }
        #expect(try await client.error("mail.search", [:])["data"]?["field"] == "query")
        // Every term must match: a 17th is refused, never left out (which would widen the search unsaid).
        let words = (1...17).map { "w\($0)" }
        let many = try await client.error("mail.search", ["query": .string(words.joined(separator: " "))])
        #expect(many["code"] == -32602 && many["data"]?["field"] == "query", "\(many)")
        let repeated = words.prefix(16).joined(separator: " ") + " W1 w2"
        #expect(try await client.result("mail.search", ["query": .string(repeated)])["items"]?.arrayValue?.isEmpty == true)
    }

    @Test("every mail method has a schema file with its name and summary, and every reference resolves")
    func schemas() throws {
        let catalog = SchemaCatalog.embedded
        let entries = try MethodRegistry.mailMethods(mail, defaultAccount: nil).freeze().entries
        #expect(entries.map(\.name) == ["inbox.list", "mail.changes", "mail.folders", "mail.get", "mail.import", "mail.login",
                                        "mail.markRead", "mail.move", "mail.search", "mail.send", "mail.thread"])
        func references(_ value: JSONValue) -> [String] {
            switch value {
            case .object(let object):
                return object.flatMap { key, member in
                    key == "$ref" ? [member.stringValue ?? "?"] : references(member)
                }
            case .array(let items): return items.flatMap(references)
            default: return []
            }
        }
        for entry in entries {
            let schema = try #require(catalog.methods[entry.name], "no Schemas/methods/\(entry.name).json")
            #expect(schema["summary"]?.stringValue == entry.summary, "\(entry.name)")
            var pending = references(schema)
            var seen = Set<String>()
            while let reference = pending.popLast() {
                guard seen.insert(reference).inserted else { continue }
                let name = String(reference.dropFirst("#/components/schemas/".count))
                let component = try #require(catalog.components[name], "\(entry.name): \(reference) does not resolve")
                pending += references(component)
            }
        }
    }
}
