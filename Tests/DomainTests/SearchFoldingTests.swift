import Jansson
import MailDomain
import PostgresNIO
import PostgresTesting
import SwitchboardPostgres
import SchemaTesting
import SwitchboardStorage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Search folds Unicode alike in both services (issue 6, point 14).
@Suite("Search folding", .postgresStores)
struct SearchFoldingTests {
    @Test("search folds Unicode: a decomposed cafe\\u0301, CAFÉ and cafe all find \"Café\"", arguments: MailBackend.allCases)
    func searchFolds(backend: MailBackend) async throws {
        let client = try await MailInputHygieneTests.client(backend)
        let sent = try await client.result("mail.send", ["to": "ann@example.com", "subject": "Café crème tomorrow", "text": "Naïve plan"])
        let uid = try #require(sent["message"]?["uid"]?.stringValue)
        for query in ["cafe\u{301}", "café", "CAFÉ", "cafe", "CRE\u{300}ME", "naive", "nai\u{308}ve"] {
            let hits = try await client.result("mail.search", ["query": .string(query)])["items"]?.strings("uid") ?? []
            #expect(hits.contains(uid), "\(query.unicodeScalars.map { String($0.value, radix: 16) }) found \(hits)")
        }
    }

    @Test("search folds as SQLite's unicode61 does on every backend: İstanbul by istanbul, ΟΔΟΣ by οδος and οδοσ, maſs by mass, µm by μm, Greek symbol forms by their letters",
          arguments: MailBackend.allCases)
    func searchFoldsLikeSQLite(backend: MailBackend) async throws {
        let client = try await MailInputHygieneTests.client(backend)
        var uids: [String: String] = [:]
        for subject in ["Trip to İstanbul", "Ω ΟΔΟΣ", "Maſs ẛ", "5 µm ϐϑϕϖϰϱϵ"] {
            let sent = try await client.result("mail.send", ["to": "ann@example.com", "subject": .string(subject), "text": "x"])
            uids[subject] = try #require(sent["message"]?["uid"]?.stringValue)
        }
        for (query, subject) in [("istanbul", "Trip to İstanbul"), ("ISTANBUL", "Trip to İstanbul"), ("İSTANBUL", "Trip to İstanbul"),
                                 ("οδος", "Ω ΟΔΟΣ"), ("οδοσ", "Ω ΟΔΟΣ"), ("ΟΔΟς", "Ω ΟΔΟΣ"), ("mass", "Maſs ẛ"), ("s", "Maſs ẛ"),
                                 ("μm", "5 µm ϐϑϕϖϰϱϵ"), ("ΜM", "5 µm ϐϑϕϖϰϱϵ"), ("βθφπκρε", "5 µm ϐϑϕϖϰϱϵ")] {
            let hits = try await client.result("mail.search", ["query": .string(query)])["items"]?.strings("uid") ?? []
            #expect(hits.contains(uids[subject] ?? "?"), "\(backend): \(query) found \(hits)")
        }
    }

    @Test("on PostgreSQL, a message an older switchboard stored with its folding is folded again once at opening, and found as a new one is")
    func postgresRefoldsOlderRows() async throws {
        let store = try await PostgresTestStores.open(migrations: [PostgresMailService.migrations])
        try await store.write { try await PostgresMailService.seed($0, clock: mailTestClock, messages: 20, logger: TestPostgres.logger) }
        let client = MailRPCClient(try mailDispatcher(PostgresMailService(store: store, clock: mailTestClock)))
        let sent = try await client.result("mail.send", ["to": "ann@example.com", "subject": "Trip to İstanbul", "text": "οδος maſs"])
        let uid = try #require(sent["message"]?["uid"]?.stringValue)
        let other = try await client.result("mail.send", ["to": "ann@example.com", "subject": "Maſs", "text": "x"])
        let otherUID = try #require(other["message"]?["uid"]?.stringValue)
        // As an older switchboard folded them: İ's combining dot, the final sigma and the long s kept.
        _ = try await store.write { connection in
            try await connection.query("""
                UPDATE mail_message SET search_subject = ' trip to i\u{0307}stanbul ', search_body = ' οδος maſs ' WHERE uid = \(uid)
                """, logger: TestPostgres.logger)
            try await connection.query("UPDATE mail_message SET search_subject = ' maſs ' WHERE uid = \(otherUID)", logger: TestPostgres.logger)
        }
        func found(_ query: String) async throws -> Bool {
            let hits = try await client.result("mail.search", ["query": .string(query)])["items"]?.strings("uid") ?? []
            return hits.contains(uid)
        }
        let before = (try await found("istanbul"), try await found("mass"))
        #expect(!before.0 && !before.1, "the older folding is in place")
        // One message a transaction: the walk goes on past the first batch.
        #expect(try await PostgresMailService.refoldSearch(store, batch: 1, logger: TestPostgres.logger) == 2)
        for query in ["istanbul", "İSTANBUL", "οδοσ", "ΟΔΟΣ", "mass"] {
            let hit = try await found(query)
            #expect(hit, "\(query)")
        }
        let both = try await client.result("mail.search", ["query": "mass"])["items"]?.strings("uid") ?? []
        #expect(both.contains(otherUID), "the second batch's message is found too: \(both)")
        // Once per database: the note is kept, and a second opening reads it and writes nothing.
        #expect(try await PostgresMailService.refoldSearch(store, logger: TestPostgres.logger) == 0)
    }

    @Test("a database made before the folding migration is reindexed: its \"Café\" is found by cafe and cafe\\u0301")
    func migrationReindexes() async throws {
        let path = TestScratch.path("folding.sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        let old = try AppDatabase(path: path, migrations: Array(SQLiteMailService.migrations.prefix(1)))
        let before = MailRPCClient(try mailDispatcher(SQLiteMailService(database: old, clock: mailTestClock)))
        let sent = try await before.result("mail.send", ["to": "ann@example.com", "subject": "Café", "text": "t"])
        let uid = try #require(sent["message"]?["uid"]?.stringValue)
        #expect(try await before.result("mail.search", ["query": "cafe"])["items"]?.strings("uid") == [])

        let upgraded = try AppDatabase(path: path, migrations: SQLiteMailService.migrations)
        let after = MailRPCClient(try mailDispatcher(SQLiteMailService(database: upgraded, clock: mailTestClock)))
        for query in ["cafe", "cafe\u{301}", "CAFÉ"] {
            #expect(try await after.result("mail.search", ["query": .string(query)])["items"]?.strings("uid") == [uid], "\(query)")
        }
    }
}
