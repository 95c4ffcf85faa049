#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// Every method answers once over the binary's pipes, so every result schema `rpc.discover` serves is
/// checked against a real answer at least once (the harness checks each answer against its schema).
@Suite("Every method's answer matches its result schema", .offCooperativePool)
struct AnswerCoverageTests {
    /// Calls `method` and returns its result; an error answer fails the test.
    static func call(_ host: SpawnedHost, _ id: inout Int, _ method: String, _ params: JSONValue? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        id += 1
        try host.send(BinaryHarness.request(id, method, params?.jsonText()))
        let reply = try host.response(to: .integer(Int64(id))).response
        return try #require(reply["result"], "\(method) failed: \(reply.jsonText())", sourceLocation: sourceLocation)
    }

    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite
        var testDescription: String { rawValue }
    }

    @Test("host, mail, feed and calendar methods", arguments: Backend.allCases, [BinaryHarness.Wire.ndjson, .lsp])
    func everyMethod(backend: Backend, wire: BinaryHarness.Wire) throws {
        let folder = try BinaryHarness.temporaryFolder("coverage")
        defer { _ = system("rm -rf '\(folder)'") }
        let store = backend == .memory
            ? ["--backend", "memory"]
            : ["--db", folder + "/coverage.sqlite", "--feed-items", "500", "--mail-messages", "60"]
        let host = try SpawnedHost(arguments: store + ["--now", "2026-01-01T09:00:00Z"], wire: wire)
        var id = 0
        _ = try Self.call(host, &id, "initialize", ["processId": nil, "clientInfo": ["name": "coverage"]])
        _ = try Self.call(host, &id, "host.ping")
        _ = try Self.call(host, &id, "host.echo", ["a": [1, 2.5, "x", nil, true]])
        _ = try Self.call(host, &id, "host.echo", [1, 2])
        _ = try Self.call(host, &id, "host.methods")
        _ = try Self.call(host, &id, "host.status")
        _ = try Self.call(host, &id, "host.sleep", ["ms": 2, "steps": 2, "_meta": ["progressToken": "p"]])
        _ = try Self.call(host, &id, "rpc.discover")

        let inbox = try Self.call(host, &id, "inbox.list", ["limit": 5])
        _ = try Self.call(host, &id, "inbox.list", ["folder": "sent", "unreadOnly": true, "limit": 3])
        let next = try #require(inbox["nextCursor"]?.stringValue, "the demo inbox has a second page")
        _ = try Self.call(host, &id, "inbox.list", ["cursor": .string(next)])
        _ = try Self.call(host, &id, "mail.folders")
        let conversation = try #require(inbox["items"]?.arrayValue?.first)
        let uid = try #require(conversation["latest"]?["uid"])
        let thread = try #require(conversation["threadId"])
        _ = try Self.call(host, &id, "mail.get", ["uid": uid])
        _ = try Self.call(host, &id, "mail.thread", ["threadId": thread])
        _ = try Self.call(host, &id, "mail.search", ["query": "the", "limit": 20])
        let state = try #require(inbox["state"])
        let sent = try Self.call(host, &id, "mail.send", [
            "to": ["ada@example.com", "alan@example.org"], "cc": "grace@example.net", "subject": "Re: coverage",
            "text": "Every answer, checked.", "inReplyTo": uid,
        ])
        let sentUID = try #require(sent["message"]?["uid"])
        _ = try Self.call(host, &id, "mail.markRead", ["uids": [uid, sentUID], "read": true])
        _ = try Self.call(host, &id, "mail.move", ["uids": [sentUID], "folder": "Archive"])
        _ = try Self.call(host, &id, "mail.changes", ["sinceState": state, "maxChanges": 1])
        _ = try Self.call(host, &id, "mail.changes", ["sinceState": state])

        let feed = try Self.call(host, &id, "feed.list", ["limit": 200])
        _ = try Self.call(host, &id, "feed.list", ["cursor": try #require(feed["nextCursor"]), "limit": 200])
        _ = try Self.call(host, &id, "feed.page", ["page": 3, "pageSize": 7])
        _ = try Self.call(host, &id, "feed.get", ["id": 42])
        _ = try Self.call(host, &id, "feed.changes", ["sinceState": try #require(feed["state"])])

        let agenda = try Self.call(host, &id, "calendar.agenda", ["from": "2025-12-29", "to": "2026-01-11", "timeZone": "Europe/Berlin"])
        _ = try Self.call(host, &id, "calendar.day", ["date": "2026-01-01"])
        _ = try Self.call(host, &id, "calendar.create", [
            "id": "coverage", "title": "Coverage", "start": "2026-01-05T09:30:00", "timeZone": "Europe/Berlin", "duration": "PT30M",
            "participants": ["p1": ["name": "Ada", "email": "ada@example.com", "roles": ["owner": true]]],
            "recurrenceRules": [["frequency": "weekly", "byDay": [["day": "mo"]]]],
        ])
        _ = try Self.call(host, &id, "calendar.get", ["id": "coverage"])
        _ = try Self.call(host, &id, "calendar.update", ["id": "coverage", "scope": "this", "recurrenceId": "2026-01-12T09:30:00",
                                                         "patch": ["title": "Moved", "start": "2026-01-12T11:00:00"]])
        _ = try Self.call(host, &id, "calendar.update", ["id": "coverage", "scope": "thisAndFollowing", "recurrenceId": "2026-01-26T09:30:00",
                                                         "patch": ["title": "Later"]])
        _ = try Self.call(host, &id, "calendar.delete", ["id": "coverage", "scope": "this", "recurrenceId": "2026-01-19T09:30:00"])
        let exported = try Self.call(host, &id, "calendar.export", ["from": "2026-01-01", "to": "2026-01-31"])
        _ = try Self.call(host, &id, "calendar.import", ["ics": try #require(exported["ics"])])
        _ = try Self.call(host, &id, "calendar.changes", ["sinceState": try #require(agenda["state"])])
        _ = try Self.call(host, &id, "calendar.delete", ["id": "coverage"])

        _ = try Self.call(host, &id, "mail.login", ["email": "coverage@example.com", "password": "secret"])
        _ = try Self.call(host, &id, "inbox.list")
        _ = try Self.call(host, &id, "shutdown")
        try host.send(BinaryHarness.notification("exit"))
        #expect(try host.waitForExit() == .exited(0))
    }
}
