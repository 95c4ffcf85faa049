import GRDB
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL in the middle of every kind of write: the host is killed once it has acknowledged
/// ``killAfter`` of a pipelined stream of writes, more still in flight (the stream is fed ``window`` writes
/// ahead of the acknowledgements, so its end is never sent before the kill); a second host process then
/// finds every acknowledged write (also those acknowledged on the way to the kill and still in the
/// pipe), and `PRAGMA integrity_check` is ok. `mail.send` has its own test in ``BinaryCrashTests``.
@Suite("Crash durability of every kind of write, against the binary", .offCooperativePool)
struct BinaryWriteCrashTests {
    typealias H = BinaryHarness

    static let writes = 1_000
    static let killAfter = 60
    /// Writes sent and not yet seen acknowledged: the stream is fed this far ahead as acknowledgements come.
    static let window = 200

    static func arguments(_ database: String) -> [String] {
        ["--db", database, "--feed-items", "100", "--mail-messages", "20", "--calendar-events", "10", "--now", "2026-01-01T09:00:00Z"]
    }

    /// One kind of write: what to write, how its acknowledgement looks and how to find it again.
    struct Kind: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// Requests answered before the storm (the items the writes change).
        var setup: [String] = []
        /// The storm's write `index` (from 0), given the setup's answers.
        var write: @Sendable (Int, [JSONValue]) -> String
        /// The write a message acknowledges, if it is an acknowledgement.
        var acknowledged: @Sendable (JSONValue) -> Int? = { message in
            message["method"] == nil && message["result"] != nil ? message["id"]?.int64Value.map { Int($0) - 1 } : nil
        }
        /// A request to the second host that finds write `index`, given the setup's answers.
        var check: @Sendable (Int, [JSONValue]) -> String
        /// Whether the check's answer shows write `index` stored.
        var stored: @Sendable (Int, JSONValue) -> Bool
    }

    static func sentUID(_ answers: [JSONValue], _ index: Int) -> String {
        answers[index / 2]["result"]?["message"]?["uid"]?.stringValue ?? "missing"
    }

    static let kinds: [Kind] = [
        Kind(testDescription: "mail.move and mail.markRead",
             setup: (0..<writes / 2).map { H.request(100_000 + $0, "mail.send", #"{"to":"ada@example.com","subject":"s \#($0)","text":"t"}"#) },
             write: { index, sent in
                 index.isMultiple(of: 2)
                     ? H.request(index + 1, "mail.move", #"{"uids":["\#(sentUID(sent, index))"],"folder":"Archive"}"#)
                     : H.request(index + 1, "mail.markRead", #"{"uids":["\#(sentUID(sent, index))"],"read":false}"#)
             },
             check: { index, sent in H.request(index, "mail.get", #"{"uid":"\#(sentUID(sent, index))"}"#) },
             stored: { index, answer in
                 index.isMultiple(of: 2) ? answer["result"]?["folder"] == "Archive" : answer["result"]?["read"] == false
             }),
        Kind(testDescription: "chat.send (acknowledged by chat.messageState sent)",
             write: { index, _ in
                 H.request(index + 1, "chat.send", #"{"roomId":"grp-team","text":"crash \#(index)","clientMessageId":"crash-\#(index)"}"#)
             },
             acknowledged: { message in
                 guard message["method"] == "chat.messageState", message["params"]?["state"] == "sent",
                       let id = message["params"]?["clientMessageId"]?.stringValue else { return nil }
                 return Int(id.dropFirst("crash-".count))
             },
             check: { index, _ in
                 H.request(index, "chat.send", #"{"roomId":"grp-team","text":"crash \#(index)","clientMessageId":"crash-\#(index)"}"#)
             },
             stored: { _, answer in answer["result"]?["message"]?["duplicate"] == true }),
        Kind(testDescription: "calendar.create",
             write: { index, _ in
                 H.request(index + 1, "calendar.create", #"{"id":"crash-\#(index)","title":"crash \#(index)","start":"2026-01-05T10:00:00"}"#)
             },
             check: { index, _ in H.request(index, "calendar.get", #"{"id":"crash-\#(index)"}"#) },
             stored: { index, answer in answer["result"]?["event"]?["title"] == .string("crash \(index)") }),
        Kind(testDescription: "calendar.update",
             setup: (0..<writes).map {
                 H.request(100_000 + $0, "calendar.create", #"{"id":"crash-\#($0)","title":"before","start":"2026-01-05T10:00:00"}"#)
             },
             write: { index, _ in
                 H.request(index + 1, "calendar.update", #"{"id":"crash-\#(index)","patch":{"title":"after \#(index)"}}"#)
             },
             check: { index, _ in H.request(index, "calendar.get", #"{"id":"crash-\#(index)"}"#) },
             stored: { index, answer in answer["result"]?["event"]?["title"] == .string("after \(index)") }),
        Kind(testDescription: "calendar.import",
             write: { index, _ in
                 let ics = #"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//crash//EN\r\nBEGIN:VEVENT\r\nUID:crash-\#(index)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T100000Z\r\nSUMMARY:imported \#(index)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"#
                 return H.request(index + 1, "calendar.import", #"{"ics":"\#(ics)"}"#)
             },
             check: { index, _ in H.request(index, "calendar.get", #"{"id":"crash-\#(index)"}"#) },
             stored: { index, answer in answer["result"]?["event"]?["title"] == .string("imported \(index)") }),
        Kind(testDescription: "catalog.import",
             write: { index, _ in
                 let brochure = #"{"id":\#(50_000 + index),"title":"crash \#(index)","retailerName":"r","coverUrl":null}"#
                 return H.request(index + 1, "catalog.import",
                                  #"{"document":{"sectors":[{"id":\#(50_000 + index),"name":"s","url":null,"brochures":[\#(brochure)]}]}}"#)
             },
             check: { index, _ in H.request(index, "catalog.get", #"{"id":\#(50_000 + index)}"#) },
             stored: { index, answer in answer["result"]?["title"] == .string("crash \(index)") }),
    ]

    @Test("after SIGKILL in the middle of a stream of writes, every acknowledged one is stored and integrity_check is ok",
          arguments: kinds)
    func acknowledgedWritesSurviveSIGKILL(_ kind: Kind) throws {
        let folder = try H.temporaryFolder("write-crash")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/crash.sqlite"

        let host = try SpawnedHost(arguments: Self.arguments(database))
        try host.send(kind.setup)
        let setup = try host.answers(to: kind.setup.indices.map { 100_000 + $0 })
        let setupAnswers = kind.setup.indices.map { setup[100_000 + $0] ?? .null }
        try #require(setupAnswers.allSatisfy { $0["result"] != nil }, "setup failed: \(setupAnswers)")
        let stormStart = host.received.count
        // Sending the whole stream at once let a host that ran ahead of a slow test (load, a sanitizer) finish
        // every write before the kill. Fed as it is acknowledged, the stream's end is still unsent when the
        // host is killed, however fast or slow either side runs.
        var sent = Self.window
        try host.send((0..<sent).map { kind.write($0, setupAnswers) })
        var acknowledged = Set<Int>()
        while acknowledged.count < Self.killAfter {
            let message = try host.nextMessage()
            #expect(message["error"] == nil, "a write failed: \(message)")
            if let index = kind.acknowledged(message), acknowledged.insert(index).inserted {
                try host.send(kind.write(sent, setupAnswers))
                sent += 1
            }
        }
        host.signal(SIGKILL)
        #expect(try host.waitForExit() == .signaled(SIGKILL))
        // Acknowledgements written before the kill count too, read or not. The kill may cut the last
        // frame short: that one was not acknowledged.
        _ = try? host.readToEndOfOutput()
        #expect(host.isOutputAtEOF)
        for message in host.received[stormStart...] {
            if let index = kind.acknowledged(message) { acknowledged.insert(index) }
        }
        #expect(sent < Self.writes, "the whole stream was sent before the kill")
        #expect(acknowledged.isSubset(of: 0..<sent))

        let again = try SpawnedHost(arguments: Self.arguments(database))
        let order = acknowledged.sorted()
        try again.send(order.map { kind.check($0, setupAnswers) })
        let answers = try again.answers(to: order)
        for index in order {
            let answer = answers[index] ?? .null
            #expect(kind.stored(index, answer), "acknowledged write \(index) is missing after the crash: \(answer)")
        }
        again.closeInput()
        #expect(try again.waitForExit() == .exited(0))

        let check = try DatabaseQueue(path: database).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(check == ["ok"])
    }

    @Test("SIGKILL in the middle of the first-use seed: each domain is seeded whole or not at all, and the next open finishes it")
    func seedSurvivesSIGKILL() throws {
        let folder = try H.temporaryFolder("seed-crash")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/seed.sqlite"
        let feedItems = 300_000
        let arguments = ["--db", database, "--feed-items", "\(feedItems)", "--mail-messages", "20", "--calendar-events", "10"]

        let host = try SpawnedHost(arguments: arguments)
        try host.send(H.request(1, "feed.get", #"{"id":1,"_meta":{"progressToken":"seed"}}"#))
        // Killed once a third is written: the feed's transaction is open then.
        while true {
            let message = try host.nextMessage(within: 120_000)
            try #require(message["id"] == nil, "the seed finished before the kill: \(message)")
            let value = message["params"]?["value"]
            if let done = value?["done"]?.int64Value, let total = value?["total"]?.int64Value, done * 3 >= total { break }
        }
        host.signal(SIGKILL)
        #expect(try host.waitForExit() == .signaled(SIGKILL))

        // What a domain's seed flag says is there, is there whole.
        let expected = ["seed/mail": ("mail_message", 20), "seed/feed": ("feed_item", feedItems)]
        let (check, flags, rows) = try DatabaseQueue(path: database).read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"),
             try String.fetchAll(db, sql: "SELECT key FROM meta WHERE key LIKE 'seed/%'"),
             try expected.mapValues { entry in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(entry.0)") ?? -1 })
        }
        #expect(check == ["ok"])
        for (flag, (table, count)) in expected {
            let found = rows[flag] ?? -1
            #expect(flags.contains(flag) ? found == count : found == 0, "\(flag) \(flags.contains(flag)), \(found) rows in \(table)")
        }
        #expect(!flags.contains("seed/feed") || flags.contains("seed/mail"))

        // Seeding 300,000 items takes minutes under a sanitizer: the guard waits on its progress lines on
        // stderr (one a second), not on a total time.
        let seed = try SpawnedHost(arguments: ["seed"] + arguments, raw: true)
        seed.closeInput()
        try seed.readToEndOfOutput(quietAtMost: 120_000)
        #expect(try seed.waitForExit() == .exited(0), "\(seed.stderrText)")
        #expect(seed.stdoutText.contains("feed (\(feedItems) items)"), "\(seed.stdoutText)")
        let after = try DatabaseQueue(path: database).read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM mail_message"))
        }
        #expect(after.0 == ["ok"])
        #expect(after.1 == feedItems)
        #expect(after.2 == 20)
    }
}
