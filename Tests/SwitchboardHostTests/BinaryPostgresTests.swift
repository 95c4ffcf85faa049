import Jansson
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL backend through the built binary (`--db postgres://…`), against the throwaway test
/// server: what it serves, how it starts, and what happens when the server goes away under it.
@Suite("PostgreSQL backend, against the binary", .offCooperativePool,
       .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct BinaryPostgresTests {
    typealias H = BinaryHarness

    static func arguments(_ db: String) -> [String] {
        ["--db", db, "--feed-items", "100", "--now", "2026-01-01T09:00:00Z"]
    }

    /// The answers of `requests` (each sent when the one before is answered), their `state` members removed
    /// (a state is a position in a backend's own log).
    static func answers(_ host: SpawnedHost, _ requests: [(String, String)], firstID: Int = 1) throws -> [JSONValue] {
        try requests.enumerated().map { offset, request in
            let (method, params) = request
            let id = firstID + offset
            try host.send(H.request(id, method, params))
            var result = try #require(try host.response(to: .integer(Int64(id))).response["result"]?.objectValue, "\(method) failed")
            result["state"] = nil
            return .object(result)
        }
    }

    @Test("--db postgres://…: feed and catalog answer as on SQLite, page for page; host.status shows the URL without its password")
    func servesLikeSQLite() async throws {
        let requests = [("feed.list", #"{"limit":40}"#), ("feed.list", #"{"limit":40,"cursor":"CURSOR"}"#),
                        ("feed.get", #"{"id":77}"#), ("catalog.sectors", #"{"locale":"sv-SE"}"#),
                        ("catalog.brochures", #"{"sectorId":2,"limit":4}"#), ("catalog.search", #"{"query":"apotheke"}"#)]
        /// The answers on a host with `db`, the second page following the first one's cursor.
        func answers(_ db: String) throws -> [JSONValue] {
            let host = try SpawnedHost(arguments: Self.arguments(db))
            let first = try Self.answers(host, [requests[0]])
            let cursor = try #require(first[0]["nextCursor"]?.stringValue)
            let rest = Array(requests.dropFirst()).map { ($0.0, $0.1.replacing("CURSOR", with: cursor)) }
            let answers = first + (try Self.answers(host, rest, firstID: 10))
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
            return answers
        }
        let folder = try H.temporaryFolder("pg-compare")
        defer { _ = system("rm -rf '\(folder)'") }
        let sqlite = try answers(folder + "/compare.sqlite")
        #expect(sqlite.count == requests.count)
        try await TestPostgres.withFreshDatabase { settings in
            let url = TestPostgres.url(for: settings)
            #expect(try answers(url) == sqlite)

            let host = try SpawnedHost(arguments: Self.arguments(url))
            try host.send(H.request(1, "host.status"))
            let store = try host.response(to: 1).response["result"]?["store"]
            #expect(store?["backend"] == "postgres")
            let location = try #require(store?["location"]?.stringValue)
            #expect(location == "postgres://\(settings.user):***@127.0.0.1:\(TestPostgres.port)/\(settings.database)?sslmode=disable")
            #expect(!location.contains(TestPostgres.password))
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
            #expect(!host.stderrText.contains(TestPostgres.password))
        }
    }

    @Test("SWITCHBOARD_DATABASE_URL selects PostgreSQL; two hosts starting at once on an empty database both come up, seeded once")
    func environmentAndTwoHosts() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let environment: [String: String?] = ["SWITCHBOARD_DATABASE_URL": TestPostgres.url(for: settings)]
            let hosts = try (0..<2).map { _ in try SpawnedHost(arguments: ["--feed-items", "100"], environment: environment) }
            for host in hosts { try host.send(H.request(1, "feed.list", #"{"limit":1}"#)) }
            for host in hosts {
                #expect(try host.response(to: 1).response["result"]?["total"] == 100)
                host.closeInput()
                #expect(try host.waitForExit() == .exited(0))
            }
        }
    }

    @Test("switchboard seed --db postgres://…: migrates and seeds, then reports it seeded already; the password is never shown")
    func seed() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let url = TestPostgres.url(for: settings)
            let first = try H.run(["seed", "--db", url, "--feed-items", "50"], raw: true)
            #expect(first.termination == .exited(0), "\(first.stderr)")
            let shown = "postgres://\(settings.user):***@127.0.0.1:\(TestPostgres.port)/\(settings.database)?sslmode=disable"
            let domains = "feed (50 items), catalog (300 brochures), mail (400 messages), chat (36 messages), calendar ("
            #expect(first.stdout.hasPrefix("seeded \(shown): \(domains)"), "\(first.stdout)")
            let again = try H.run(["seed", "--db", url], raw: true)
            #expect(again.termination == .exited(0), "\(again.stderr)")
            #expect(again.stdout.hasPrefix("already seeded \(shown): \(domains)"), "\(again.stdout)")
            let reset = try H.run(["seed", "--reset", "--db", url], raw: true)
            #expect(reset.termination == .exited(1))
            #expect(reset.stderr.contains("drop and create the PostgreSQL database"))
            for run in [first, again, reset] { #expect(!(run.stdout + run.stderr).contains(TestPostgres.password)) }
        }
    }

    @Test("a server that is down at start: serve, call and seed exit 1 at once with one line naming host and port, never the password")
    func serverDownAtStart() throws {
        let port = try TestPostgres.closedPort()
        let secret = "hunter2-\(getpid())"
        let url = "postgres://someone:\(secret)@127.0.0.1:\(port)/team?sslmode=disable"
        let runs = [
            try H.run(["serve", "--db", url], raw: true),
            try H.run(["call", "feed.list", "--db", url], raw: true),
            try H.run(["seed", "--db", url], raw: true),
            try H.run(["serve"], environment: ["SWITCHBOARD_DATABASE_URL": url], raw: true),
        ]
        for run in runs {
            #expect(run.termination == .exited(1))
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains("cannot connect to 127.0.0.1:\(port): connection refused"), "\(run.stderr)")
            #expect(!run.stderr.contains(secret))
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("the connection lost mid-request: the request answers -32050 naming the server (no password), the pool reconnects, later requests succeed")
    func connectionLostMidRequest() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let host = try SpawnedHost(arguments: Self.arguments(TestPostgres.url(for: settings)))
            try host.send(H.request(1, "feed.list", #"{"limit":1}"#))
            #expect(try host.response(to: 1).response["result"]?["total"] == 100)

            // The test holds feed_item locked, so the next feed.list waits on the server, in flight.
            let locker = try await TestPostgres.connect(settings)
            let admin = try await TestPostgres.connect(try TestPostgres.settings())
            try await locker.query("BEGIN", logger: TestPostgres.logger)
            try await locker.query("LOCK TABLE feed_item IN ACCESS EXCLUSIVE MODE", logger: TestPostgres.logger)
            try host.send(H.request(2, "feed.list", #"{"limit":1}"#))
            try await TestPostgres.waitUntil("feed.list waits for the lock") { try await TestPostgres.waitingLocks(locker) > 0 }
            let lockerPID = try await Self.backendPID(locker)
            // Every connection of the host ends (the pool's and the listener's), not the test's lock holder.
            for pid in try await TestPostgres.backends(of: settings.database, admin) where pid != lockerPID {
                try await admin.query("SELECT pg_terminate_backend(\(pid))", logger: TestPostgres.logger)
            }
            let lost = try host.response(to: 2).response
            #expect(H.errorCode(lost) == -32050, "\(lost)")
            let data = lost["error"]?["data"]
            #expect(data?["path"]?.stringValue == "postgres://\(settings.user):***@127.0.0.1:\(TestPostgres.port)/\(settings.database)?sslmode=disable")
            #expect(data?["cause"]?.stringValue?.contains("127.0.0.1:\(TestPostgres.port)") == true, "\(lost)")
            #expect(lost.jsonText().contains(TestPostgres.password) == false)
            try await locker.query("ROLLBACK", logger: TestPostgres.logger)

            // A connection the pool held idle may fail once more, with the same error; then one is made anew.
            var answered = false
            for id in 3...6 where !answered {
                try host.send(H.request(id, "feed.list", #"{"limit":1}"#))
                let answer = try host.response(to: .integer(Int64(id))).response
                if answer["result"]?["total"] == 100 {
                    answered = true
                } else {
                    #expect(H.errorCode(answer) == -32050, "\(answer)")
                }
            }
            #expect(answered, "no feed.list succeeded after the connections were ended")
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
            #expect(!host.stderrText.contains(TestPostgres.password))
            try await locker.close()
            try await admin.close()
        }
    }

    @Test("a subscription resumes after the connection is lost: a write made while the host could not reconnect is pushed once it has")
    func subscriptionResumesAfterReconnect() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let host = try SpawnedHost(arguments: Self.arguments(TestPostgres.url(for: settings)))
            try host.send(H.request(1, "catalog.subscribe"))
            let subscribed = try host.response(to: 1).response["result"]
            let since = try #require(subscribed?["state"]?.stringValue)
            let subscription = try #require(subscribed?["subscriptionId"])

            let writer = try await TestPostgres.connect(settings)
            let admin = try await TestPostgres.connect(try TestPostgres.settings())
            let database = PostgresQuery(unsafeSQL: "ALTER DATABASE \(settings.database) ALLOW_CONNECTIONS false")
            try await admin.query(database, logger: TestPostgres.logger)
            let writerPID = try await Self.backendPID(writer)
            for pid in try await TestPostgres.backends(of: settings.database, admin) where pid != writerPID {
                try await admin.query("SELECT pg_terminate_backend(\(pid))", logger: TestPostgres.logger)
            }
            // The listener has lost its connection and cannot make another: its NOTIFY would be lost.
            try host.waitForStderr(containing: "PostgreSQL change listener lost")
            try await writer.withTransaction(logger: TestPostgres.logger) { connection in
                try await connection.query("INSERT INTO catalog_sector(id, name, image_url) VALUES (77, 'Zubehör', NULL)", logger: TestPostgres.logger)
                try await PostgresChangeLog.record(connection, domain: "catalog", itemID: "sector/77", kind: .created, logger: TestPostgres.logger)
            }
            try await admin.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(settings.database) ALLOW_CONNECTIONS true"), logger: TestPostgres.logger)

            // Reconnected, the listener wakes the subscription, which reads the log from its state.
            let pushed = try host.nextMessage(within: 60_000)
            #expect(pushed["method"] == "catalog.changed", "\(pushed)")
            #expect(pushed["params"]?["subscriptionId"] == subscription)
            try host.send(H.request(2, "catalog.changes", #"{"sinceState":"\#(since)"}"#))
            let changes = try host.response(to: 2).response["result"]
            #expect(changes?["created"] == ["sector/77"], "\(String(describing: changes))")
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
            try await writer.close()
            try await admin.close()
        }
    }

    static func backendPID(_ connection: PostgresConnection) async throws -> Int32 {
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: TestPostgres.logger).decode(Int32.self) {
            return pid
        }
        throw H.Failure("no backend pid")
    }
}
