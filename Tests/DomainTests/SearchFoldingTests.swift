import Jansson
import MailDomain
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
