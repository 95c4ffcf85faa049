import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import Testing

/// Mail params through the JSON-RPC layer on both services (issue 6, points 11 and 14): `U+0000`,
/// unknown members, size limits, brief error quotes, Unicode folding in search.
@Suite("Mail input hygiene", .postgresStores)
struct MailInputHygieneTests {
    static func client(_ backend: MailBackend) async throws -> MailRPCClient {
        MailRPCClient(try mailDispatcher(try await backend.make()))
    }

    static func expectInvalid(_ error: JSONValue, field: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error["code"] == -32602, "\(error)", sourceLocation: sourceLocation)
        #expect(error["data"]?["field"] == .string(field), "\(error)", sourceLocation: sourceLocation)
    }

    @Test("uids that differ only in Unicode normalisation are two messages on every backend, in one import batch or two, as the stores compare them",
          arguments: MailBackend.allCases)
    func uidsComparedByBytes(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        func record(_ uid: String, _ subject: String) -> JSONValue {
            ["uid": .string(uid), "from": "a@b.example", "to": .string(DemoAccount.email), "subject": .string(subject), "text": "t", "dateTime": "Today"]
        }
        let imported = try await client.result("mail.import", ["records": [record("caf\u{E9}", "NFC"), record("cafe\u{301}", "NFD")]])
        #expect(imported["imported"] == 2 && imported["skipped"] == 0, "\(imported)")
        #expect(try await client.result("mail.get", ["uid": "caf\u{E9}"])["subject"] == "NFC")
        #expect(try await client.result("mail.get", ["uid": "cafe\u{301}"])["subject"] == "NFD")
        let threads = try await client.result("inbox.list", ["limit": 100])["items"]?.strings("threadId") ?? []
        for uid in ["caf\u{E9}", "cafe\u{301}"] {
            #expect(threads.filter { $0.utf8.elementsEqual(uid.utf8) }.count == 1, "\(backend): \(uid) in \(threads)")
        }
        // A reply to one joins that one's conversation only.
        let reply: JSONValue = ["uid": "r1", "from": "a@b.example", "to": .string(DemoAccount.email), "subject": "Re: NFD", "text": "t",
                                "dateTime": "Today", "responseToUid": "cafe\u{301}"]
        _ = try await client.result("mail.import", ["records": [reply]])
        let thread = try await client.result("mail.thread", ["threadId": "cafe\u{301}"])
        #expect(Set(thread["messages"]?.strings("subject") ?? []) == ["NFD", "Re: NFD"], "\(thread)")
    }

    @Test("mail.send with a subject holding U+0000 is -32602 naming subject, and stores nothing", arguments: MailBackend.allCases)
    func nulInSubject(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let before = try await client.result("inbox.list", ["folder": "sent"])
        let error = try await client.error("mail.send", ["to": "ann@example.com", "subject": "before\u{0}after", "text": "x"])
        Self.expectInvalid(error, field: "subject")
        #expect(error["data"]?["expected"] == "a string without U+0000 (NUL)")
        #expect(try await client.result("inbox.list", ["folder": "sent"])["items"] == before["items"])
        for (field, params) in [("text", ["to": "ann@example.com", "subject": "s", "text": "a\u{0}b"] as JSONValue),
                                ("to", ["to": "ann@example.com\u{0}x", "subject": "s", "text": "t"]),
                                ("inReplyTo", ["to": "ann@example.com", "subject": "s", "text": "t", "inReplyTo": "m000124\u{0}"])] {
            Self.expectInvalid(try await client.error("mail.send", params), field: field)
        }
    }

    @Test("mail.markRead of \"m000124\\u0000zzz\" is -32602 naming uids[0] and leaves m000124 as it was", arguments: MailBackend.allCases)
    func nulInUID(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let message = try await client.result("mail.get", ["uid": "m000124"])
        let read = try #require(message["read"]?.boolValue as Bool?)
        let error = try await client.error("mail.markRead", ["uids": ["m000124\u{0}zzz"], "read": .bool(!read)])
        Self.expectInvalid(error, field: "uids[0]")
        #expect(try await client.result("mail.get", ["uid": "m000124"])["read"] == .bool(read))
        Self.expectInvalid(try await client.error("mail.move", ["uids": ["m000124\u{0}"], "folder": "archive"]), field: "uids[0]")
        Self.expectInvalid(try await client.error("mail.get", ["uid": "m000124\u{0}zzz"]), field: "uid")
        Self.expectInvalid(try await client.error("mail.thread", ["threadId": "t\u{0}"]), field: "threadId")
    }

    @Test("a member a method does not take is -32602 naming it; _meta is accepted", arguments: MailBackend.allCases)
    func unknownMembers(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let send = try await client.error("mail.send", ["to": "ann@example.com", "subject": "s", "text": "t", "bcc": "eve@example.com"])
        Self.expectInvalid(send, field: "bcc")
        #expect(send["message"]?.stringValue?.contains("to, cc, subject, text, inReplyTo") == true, "\(send)")
        let cases: [(String, JSONValue, String)] = [
            ("inbox.list", ["limt": 5], "limt"),
            ("inbox.list", ["folder": "inbox", "unread": true], "unread"),
            ("mail.search", ["query": "budget", "page": 2], "page"),
            ("mail.folders", ["folder": "inbox"], "folder"),
            ("mail.changes", ["sinceState": "mail-0", "max": 5], "max"),
            ("mail.login", ["email": "ann@example.com", "password": "x", "remember": true], "remember"),
            ("mail.markRead", ["uids": ["m000124"], "read": true, "all": true], "all"),
        ]
        for (method, params, field) in cases {
            Self.expectInvalid(try await client.error(method, params), field: field)
        }
        let listed = try await client.result("inbox.list", ["limit": 2, "folder": "inbox", "cursor": nil, "unreadOnly": false],
                                             progressToken: "p")
        #expect(listed["items"]?.arrayValue?.count == 2)
    }

    @Test("text params have size limits, named in the error", arguments: MailBackend.allCases)
    func sizeLimits(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let long = { (count: Int) in JSONValue.string(String(repeating: "é", count: count)) }
        let cases: [(String, JSONValue, String, String)] = [
            ("mail.send", ["to": "a@example.com", "subject": long(1_001), "text": "t"], "subject", "at most 1000 characters"),
            ("mail.send", ["to": "a@example.com", "subject": "s", "text": long(1_000_001)], "text", "at most 1000000 characters"),
            ("mail.send", ["to": .array(Array(repeating: "a@example.com", count: 101)), "subject": "s", "text": "t"], "to", "at most 100 addresses"),
            ("mail.search", ["query": long(1_001)], "query", "at most 1000 characters"),
            ("mail.markRead", ["uids": [long(201)], "read": true], "uids[0]", "at most 200 characters"),
            ("mail.get", ["uid": long(201)], "uid", "at most 200 characters"),
            ("mail.login", ["email": "a@example.com", "password": long(1_001)], "password", "at most 1000 characters"),
        ]
        for (method, params, field, expected) in cases {
            let error = try await client.error(method, params)
            Self.expectInvalid(error, field: field)
            #expect(error["data"]?["expected"] == .string(expected), "\(method): \(error)")
        }
        // At the limit, accepted.
        _ = try await client.result("mail.send", ["to": "a@example.com", "subject": long(1_000), "text": "t"])
        _ = try await client.result("mail.search", ["query": long(1_000)])
    }

    @Test("a search of more than 32 word parts in all (a-b-c is three) is -32602 naming query; 32 parts are searched", arguments: MailBackend.allCases)
    func longSearchTerm(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let word = { (parts: Int, letter: String) in (0..<parts).map { _ in letter }.joined(separator: "-") }
        for query in [word(33, "a"), word(17, "a") + " " + word(16, "b"), (0..<11).map { word(3, "w\($0)") }.joined(separator: " ")] {
            let error = try await client.error("mail.search", ["query": .string(query)])
            Self.expectInvalid(error, field: "query")
            #expect(error["data"]?["got"] == "33 parts", "\(query): \(error)")
        }
        _ = try await client.result("mail.search", ["query": .string(word(32, "a"))])
        _ = try await client.result("mail.search", ["query": .string(word(16, "a") + " " + word(16, "b") + " " + word(16, "a"))])
    }

    @Test("a conversation of 60 senders lists the first 50 as participants, oldest first", arguments: MailBackend.allCases)
    func participantsAreBounded(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0)))
        let records: [JSONValue] = (0..<60).map { index in
            prototypeRecord(uid: "p\(index)", from: "sender\(index)@example.com", responseToUid: index == 0 ? "" : "p\(index - 1)",
                            dateTime: "2026-01-01T10:\(index < 10 ? "0" : "")\(index):00Z")
        }
        #expect(try await client.result("mail.import", ["records": .array(records)])["imported"] == 60)
        let row = try #require(try await client.result("inbox.list", ["limit": 1])["items"]?.arrayValue?.first)
        #expect(row["messageCount"] == 60)
        #expect(row["participants"]?.arrayValue?.compactMap(\.stringValue) == (0..<50).map { "sender\($0)@example.com" }, "\(row)")
    }

    @Test("an 8 MB cursor is refused with a small reply that quotes a short excerpt", arguments: MailBackend.allCases)
    func hugeCursor(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let cursor = String(repeating: "A", count: 8 << 20)
        for method in ["inbox.list", "mail.search"] {
            var params: JSONObject = ["cursor": .string(cursor)]
            if method == "mail.search" { params["query"] = "budget" }
            let response = try await client.call(method, .object(params))
            #expect(response.jsonText().utf8.count < 1_000, "\(response.jsonText().prefix(1_000))")
            #expect(response["error"]?["data"]?["field"] == "cursor")
        }
    }

    @Test("8 MB of text in a state, a folder, a uid or a method name gets a small reply", arguments: MailBackend.allCases)
    func hugeValuesElsewhere(backend: MailBackend) async throws {
        let client = try await Self.client(backend)
        let huge = String(repeating: "z", count: 8 << 20)
        let calls: [(String, JSONValue)] = [
            ("mail.changes", ["sinceState": .string(huge)]),
            ("inbox.list", ["folder": .string(huge)]),
            ("mail.markRead", ["uids": [.string(huge)], "read": true]),
            ("mail.send", ["to": .string(huge), "subject": "s", "text": "t"]),
            (huge, nil),
        ]
        for (method, params) in calls {
            let response = try await client.call(method, params)
            #expect(response["error"] != nil)
            #expect(response.jsonText().utf8.count < 1_000, "\(method.prefix(20)): \(response.jsonText().prefix(1_000))")
        }
    }
}
