import Jansson
import PostgresTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The calendar on PostgreSQL through the built binary: two hosts on one database over TCP on 127.0.0.1.
@Suite("Calendar on PostgreSQL, two hosts, against the binary", .offCooperativePool,
       .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct BinaryCalendarPostgresTests {
    typealias H = BinaryHarness

    static func arguments(_ db: String) -> [String] {
        ["--db", db, "--feed-items", "10", "--now", "2026-01-01T09:00:00Z", "--time-zone", "Europe/Berlin"]
    }

    static let event = #"{"id":"team-sync","title":"Team sync","start":"2026-01-05T09:30:00","timeZone":"Europe/Berlin","duration":"PT30M"}"#
    static let marker = #"{"id":"marker","title":"Marker","start":"2026-01-06T09:30:00","timeZone":"Europe/Berlin","duration":"PT30M"}"#

    /// Reads `host`'s messages until a `method` notification arrives, counting every one of that method.
    static func notification(_ method: String, from host: SpawnedHost, seen: inout Int) throws -> JSONValue {
        while true {
            let message = try host.nextMessage(within: 60_000)
            if message["method"]?.stringValue == method {
                seen += 1
                return message
            }
        }
    }

    @Test("calendar.create on one host is pushed to the other host's calendar.subscribe exactly once; calendar.get there gives the same event")
    func createPushedToOtherHost() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let url = TestPostgres.url(for: settings)
            let writer = try SpawnedHost(arguments: Self.arguments(url))
            let reader = try SpawnedHost(arguments: Self.arguments(url))
            try reader.send(H.request(1, "calendar.subscribe"))
            let start = try #require(try reader.response(to: 1, within: 60_000).response["result"]?["state"]?.stringValue)

            try writer.send(H.request(1, "calendar.create", Self.event))
            let created = try writer.response(to: 1, within: 60_000).response
            #expect(created["result"]?["created"] == true, "\(created)")
            var pushes = 0
            let changed = try Self.notification("calendar.changed", from: reader, seen: &pushes)
            #expect(changed["params"]?["state"] == created["result"]?["state"])

            // A second write, and its push: nothing else came between (the first came once).
            try writer.send(H.request(2, "calendar.create", Self.marker))
            let marked = try writer.response(to: 2, within: 60_000).response
            let second = try Self.notification("calendar.changed", from: reader, seen: &pushes)
            #expect(second["params"]?["state"] == marked["result"]?["state"])
            #expect(pushes == 2)

            try reader.send(H.request(2, "calendar.changes", #"{"sinceState":"\#(start)"}"#))
            let changes = try reader.response(to: 2).response
            #expect(changes["result"]?["created"] == ["marker", "team-sync"] || changes["result"]?["created"] == ["team-sync", "marker"], "\(changes)")
            try reader.send(H.request(3, "calendar.get", #"{"id":"team-sync"}"#))
            try writer.send(H.request(3, "calendar.get", #"{"id":"team-sync"}"#))
            let there = try reader.response(to: 3).response["result"]?["event"]
            let here = try writer.response(to: 3).response["result"]?["event"]
            #expect(there != nil && there == here)
            #expect(there?["title"] == "Team sync")
            for host in [writer, reader] {
                host.closeInput()
                #expect(try host.waitForExit() == .exited(0))
            }
        }
    }

    @Test("calendar.agenda of the demo calendar answers on PostgreSQL as on SQLite")
    func agendaAsOnSQLite() async throws {
        func agenda(_ db: String) throws -> JSONValue? {
            let host = try SpawnedHost(arguments: Self.arguments(db))
            try host.send(H.request(1, "calendar.agenda", #"{"from":"2025-12-20","to":"2026-01-20"}"#))
            var result = try host.response(to: 1, within: 60_000).response["result"]?.objectValue
            result?["state"] = nil
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
            return result.map { .object($0) }
        }
        let folder = try H.temporaryFolder("pg-calendar")
        defer { _ = system("rm -rf '\(folder)'") }
        let sqlite = try #require(try agenda(folder + "/calendar.sqlite"))
        #expect((sqlite["days"]?.arrayValue?.count ?? 0) == 32)
        try await TestPostgres.withFreshDatabase { settings in
            let postgres = try agenda(TestPostgres.url(for: settings))
            #expect(postgres == sqlite)
        }
    }
}
