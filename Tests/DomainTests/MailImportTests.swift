import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import Testing

/// `mail.import` over files in the prototype backend's format, on both services.
@Suite("Mail import", .postgresStores)
struct MailImportTests {
    @Test("good records are kept, bad ones reported by index and reason, and a second run adds nothing",
          arguments: MailBackend.allCases)
    func goodAndBad(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 10)))
        let records: [JSONValue] = [
            prototypeRecord(uid: "1", subject: "subject 1"),
            prototypeRecord(uid: "2", subject: "Re: subject 1", responseToUid: "1", dateTime: "Yesterday"),
            prototypeRecord(uid: "3", from: "not-an-address"),
            "just a string",
            prototypeRecord(uid: "", subject: "no uid"),
            prototypeRecord(uid: "6", dateTime: "last week"),
            ["uid": "7", "from": "x@example.org", "to": .string(DemoAccount.email), "dateTime": "2025-12-24T18:30:00+01:00"],
            ["from": "x@example.org", "to": .string(DemoAccount.email), "dateTime": "Today"],
            prototypeRecord(uid: "9", to: "a@example.org, b@example.org", dateTime: "2025-12-01T00:00:00Z"),
        ]
        let file = MailTempFile(prototypeInbox(records))
        defer { file.remove() }
        let first = try await client.result("mail.import", ["path": .string(file.path)])
        #expect(first["imported"] == 4 && first["skipped"] == 0)
        let errors = try #require(first["errors"]?.arrayValue)
        #expect(errors.map { $0["index"]!.int64Value! } == [2, 3, 4, 5, 7])
        #expect(errors[0]["reason"]?.stringValue?.hasPrefix("from: expected an email address") == true)
        #expect(errors[1]["reason"]?.stringValue?.contains("expected an object") == true)
        #expect(errors[2]["reason"]?.stringValue?.hasPrefix("uid:") == true)
        #expect(errors[3]["reason"]?.stringValue?.hasPrefix("dateTime:") == true)
        #expect(errors[4]["reason"]?.stringValue == "uid: expected a string, got nothing")

        let thread = try await client.result("mail.thread", ["threadId": "1"])
        #expect(thread["messages"]?.strings("uid") == ["2", "1"])
        #expect(thread["messages"]?.strings("date") == ["2025-12-31T09:00:00Z", "2026-01-01T09:00:00Z"])
        #expect(try await client.result("mail.get", ["uid": "7"])["date"] == "2025-12-24T17:30:00Z")
        #expect(try await client.result("mail.get", ["uid": "9"])["to"] == ["a@example.org", "b@example.org"])
        #expect(try await client.result("mail.get", ["uid": "1"])["read"] == false)

        let state = first["state"]!
        let second = try await client.result("mail.import", ["path": .string(file.path)])
        #expect(second["imported"] == 0 && second["skipped"] == 4 && second["errors"]?.arrayValue?.count == 5)
        #expect(second["state"] == state)
        #expect(try await client.result("mail.changes", ["sinceState": state])["created"] == [])

        // Bad records are all counted, and the first 1,000 listed: 500,000 had made a 32 MB answer.
        let bad = try await client.result("mail.import", ["records": .array(Array(repeating: [:], count: 1_200))])
        #expect(bad["invalid"] == 1_200 && bad["imported"] == 0)
        #expect(bad["errors"]?.arrayValue?.count == 1_000 && bad["errors"]?.arrayValue?.last?["index"] == 999)
        #expect(first["invalid"] == 5)
    }

    @Test("an import record is held to mail.send's sizes and to RFC 3339 years 0000...9999, each refusal naming the member and a size, never the text",
          arguments: MailBackend.allCases)
    func sendLimitsAndTimeRange(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0)))
        let long = { (count: Int) in String(repeating: "é", count: count) }
        let many = Array(repeating: "a@example.org", count: 101).joined(separator: ",")
        let records: [JSONValue] = [
            prototypeRecord(uid: "s", subject: long(100_000)),
            prototypeRecord(uid: "t", text: long(2_000_000)),
            prototypeRecord(uid: "r", responseToUid: long(201)),
            prototypeRecord(uid: "a", to: many),
            prototypeRecord(uid: "leap", dateTime: "9999-12-31T23:59:60Z"),
            prototypeRecord(uid: "offset", dateTime: "0000-01-01T00:00:00+01:00"),
            prototypeRecord(uid: "edge", subject: long(1_000), text: long(1_000_000), dateTime: "9999-12-31T23:59:59Z"),
        ]
        let outcome = try await client.result("mail.import", ["records": .array(records)])
        #expect(outcome["imported"] == 1)
        let reasons = outcome["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        #expect(reasons == ["subject: expected at most 1000 characters, got 100000 characters",
                            "text: expected at most 1000000 characters, got 2000000 characters",
                            "responseToUid: expected at most 200 characters, got 201 characters",
                            "to: expected at most 100 addresses, got 101 addresses",
                            "dateTime: expected an RFC 3339 time, \"Today\" or \"Yesterday\", got a string",
                            "dateTime: expected an RFC 3339 time, \"Today\" or \"Yesterday\", got a string"])
        #expect(try await client.result("mail.get", ["uid": "edge"])["date"] == "9999-12-31T23:59:59Z")
    }

    @Test("a large import reports $/progress after each batch when the request carries a progress token",
          arguments: MailBackend.allCases)
    func progress(backend: MailBackend) async throws {
        let client = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0)))
        let records = (0..<1_200).map { index in
            prototypeRecord(uid: "p\(index)", subject: "Batch \(index / 10)", responseToUid: index % 10 == 0 ? "" : "p\(index - 1)",
                            dateTime: "2025-12-\(10 + index / 100)T10:\(10 + index % 50):00Z")
        }
        let file = MailTempFile(prototypeInbox(records), name: "large")
        defer { file.remove() }
        let result = try await client.result("mail.import", ["path": .string(file.path)], progressToken: "imp-1")
        #expect(result["imported"] == 1_200 && result["errors"] == [])
        let progress = client.notifications.filter { $0["method"] == "$/progress" }
        #expect(progress.map { $0["params"]!["value"]!["done"]!.int64Value! } == [500, 1_000, 1_200])
        #expect(progress.allSatisfy { $0["params"]?["token"] == "imp-1" && $0["params"]?["value"]?["total"] == 1_200 })
        let folders = try await client.result("mail.folders")
        #expect(folders["folders"]?.arrayValue?.first?["total"] == 1_200)
        #expect(try await client.result("inbox.list", ["limit": 500])["items"]?.arrayValue?.count == 120)

        let quiet = MailRPCClient(try mailDispatcher(try await backend.make(messages: 0)))
        _ = try await quiet.result("mail.import", ["path": .string(file.path)])
        #expect(quiet.notifications.isEmpty)
    }

    @Test("a missing, unreadable or malformed file is -32602 naming path")
    func badFiles() async throws {
        let client = MailRPCClient(try mailDispatcher(InMemoryMailService(clock: mailTestClock, demoMessages: 0)))
        let missing = try await client.error("mail.import", ["path": "/tmp/switchboard-nonexistent-inbox.json"])
        #expect(missing["code"] == -32602 && missing["data"]?["field"] == "path")
        #expect(missing["data"]?["got"] == "\"/tmp/switchboard-nonexistent-inbox.json\"")
        #expect(missing["message"]?.stringValue?.contains("no such file") == true)
        #expect(try await client.error("mail.import", ["path": "/tmp"])["data"]?["field"] == "path")
        #expect(try await client.error("mail.import", ["path": ""])["data"]?["field"] == "path")
        for text in ["not json", "[1, 2]", "{\"outbox\": []}", "{\"inbox\": {}}"] {
            let file = MailTempFile(text, name: "bad")
            defer { file.remove() }
            let error = try await client.error("mail.import", ["path": .string(file.path)])
            #expect(error["code"] == -32602 && error["data"]?["field"] == "path", "\(text)")
        }
        let empty = MailTempFile("{\"inbox\": []}", name: "empty")
        defer { empty.remove() }
        #expect(try await client.result("mail.import", ["path": .string(empty.path)])["imported"] == 0)
    }
}
