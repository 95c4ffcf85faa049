import DomainMethods
import FeedDomain
import GRDB
import PostgresTesting
import SwitchboardPostgres
import Jansson
import JSONRPC
import Testing
import SwitchboardCore
import SwitchboardStorage

/// One suite, every implementation: what holds for the in-memory feed holds for SQLite and PostgreSQL.
@Suite("Feed service, in memory, on SQLite and on PostgreSQL")
struct FeedServiceTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        /// `sqliteFile`: a file in WAL mode, where reads use each thread's own connection.
        case memory, sqlite, sqliteFile, postgres
        var testDescription: String { rawValue }

        /// Every backend this run can test: PostgreSQL when the test server is there (CI always has it:
        /// `TestPostgresPresenceTests`).
        static var available: [Backend] { allCases.filter { $0 != .postgres || TestPostgres.isAvailable } }
    }

    static let demoCount = 1_000

    /// Runs `body` with a feed holding the demo items `1...demoCount` (on PostgreSQL, in a fresh database
    /// of its own, dropped after).
    static func withFeed<T>(_ backend: Backend, signal: ChangeSignal = ChangeSignal(), _ body: (any FeedService) async throws -> T) async throws -> T {
        switch backend {
        case .memory:
            return try await body(InMemoryFeedService(demoCount: demoCount, signal: signal))
        case .sqlite:
            let database = try AppDatabase(path: ":memory:", migrations: SQLiteFeedService.migrations)
            try await database.writer.write { db in try SQLiteFeedService.seed(db, count: demoCount) }
            return try await body(SQLiteFeedService(database: database))
        case .sqliteFile:
            let database = try AppDatabase(path: temporaryDatabasePath(), migrations: SQLiteFeedService.migrations)
            try await database.writer.write { db in try SQLiteFeedService.seed(db, count: demoCount) }
            return try await body(SQLiteFeedService(database: database))
        case .postgres:
            return try await TestPostgres.withFreshStore(migrations: [PostgresFeedService.migrations]) { store in
                try await store.write { try await PostgresFeedService.seed($0, count: demoCount, logger: store.logger) }
                return try await body(PostgresFeedService(store: store, signal: signal))
            }
        }
    }

    @Test("the demo items are the same on every backend, item for item", arguments: [1, 2, 500, 999, 1_000] as [Int64])
    func sameDemoData(id: Int64) async throws {
        for backend in Backend.available {
            let item = try await Self.withFeed(backend) { try await $0.item(id: id) }
            #expect(item == DemoFeed.profile(id), "\(backend)")
        }
    }

    @Test("items after an id come in id order, limited", arguments: Backend.available)
    func itemsAfter(backend: Backend) async throws {
        try await Self.withFeed(backend) { feed async throws in
            let items = try await feed.items(after: 10, limit: 5)
            #expect(items.map(\.id) == [11, 12, 13, 14, 15])
            #expect(try await feed.items(after: 998, limit: 5).map(\.id) == [999, 1_000])
            #expect(try await feed.items(after: 1_000, limit: 5).isEmpty)
            #expect(try await feed.count() == 1_000)
            let slice = try await feed.slice(after: 10, limit: 5)
            #expect(slice.items == items)
            #expect(slice.total == 1_000)
            #expect(slice.state == (try await feed.state()))
        }
    }

    @Test("an unknown id is nil", arguments: Backend.available)
    func unknownItem(backend: Backend) async throws {
        try await Self.withFeed(backend) { feed async throws in
            #expect(try await feed.item(id: 0) == nil)
            #expect(try await feed.item(id: 1_001) == nil)
            #expect(try await feed.item(id: -5) == nil)
        }
    }

    @Test("appended items get the next ids and show up as created in changes", arguments: Backend.available)
    func appendAndChanges(backend: Backend) async throws {
        try await Self.withFeed(backend) { feed async throws in
            let before = try await feed.state()
            let added = try await feed.append([DemoFeed.profile(7), DemoFeed.profile(8)]).value
            #expect(added.map(\.id) == [1_001, 1_002])
            #expect(try await feed.item(id: 1_002)?.displayName == DemoFeed.profile(8).displayName)
            #expect(try await feed.count() == 1_002)
            let changes = try await feed.changes(since: before, limit: 500)
            #expect(changes.created == ["1001", "1002"])
            #expect(changes.updated.isEmpty && changes.destroyed.isEmpty)
            #expect(!changes.hasMoreChanges)
            #expect(changes.newState == (try await feed.state()))
            #expect(changes.newState != before)
            let none = try await feed.changes(since: changes.newState, limit: 500)
            #expect(none.created.isEmpty && none.newState == changes.newState)
        }
    }

    @Test("changes come in bounded answers with hasMoreChanges until caught up", arguments: Backend.available)
    func changesInPieces(backend: Backend) async throws {
        try await Self.withFeed(backend) { feed async throws in
            var state = try await feed.state()
            _ = try await feed.append((1...5).map { DemoFeed.profile($0) })
            var seen: [String] = []
            var rounds = 0
            while true {
                let answer = try await feed.changes(since: state, limit: 2)
                seen += answer.created
                state = answer.newState
                rounds += 1
                if !answer.hasMoreChanges { break }
                #expect(answer.created.count == 2)
            }
            #expect(seen == ["1001", "1002", "1003", "1004", "1005"])
            #expect(rounds == 3)
        }
    }

    @Test("an unknown, foreign or future state is refused with -32010, telling the client to reload", arguments: Backend.available)
    func unknownState(backend: Backend) async throws {
        try await Self.withFeed(backend) { feed async throws in
            for state in ["nonsense", "mail-0", "feed-zzzz", ""] {
                do {
                    _ = try await feed.changes(since: state, limit: 10)
                    Issue.record("state \(state) was accepted")
                } catch let error as ServiceError {
                    guard case .cannotCalculateChanges(state, _) = error else { Issue.record("\(error)"); continue }
                    #expect(ResponseError(service: error).code == .stateMismatch)
                    #expect(ResponseError(service: error).message.contains("reload"))
                }
            }
        }
    }

    @Test("on SQLite, a state older than the change log kept is -32010, telling the client to reload")
    func prunedState() async throws {
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteFeedService.migrations)
        let feed = SQLiteFeedService(database: database)
        let start = try await feed.state()
        _ = try await feed.append((1...5).map { DemoFeed.profile($0) })
        let recent = try await feed.state()
        try await database.writer.write { db in try ChangeLog.prune(db, keeping: 2) }
        do {
            _ = try await feed.changes(since: start, limit: 10)
            Issue.record("a state older than the log was accepted")
        } catch let error as ServiceError {
            #expect(ResponseError(service: error).code == .stateMismatch)
            #expect(ResponseError(service: error).message.contains("older than the change log kept"))
        }
        #expect(try await feed.changes(since: recent, limit: 10).created.isEmpty)
    }

    @Test("feed.list walks the same pages with the same cursors on every backend", arguments: Backend.available)
    func samePages(backend: Backend) async throws {
        /// Every page of `feed.list` 97 at a time, as JSON, without the state (a backend's own position).
        func pages(_ feed: any FeedService) async throws -> [JSONValue] {
            let client = MailRPCClient(try MethodRegistry.feedMethods(feed).freeze())
            var pages: [JSONValue] = []
            var params: JSONObject = ["limit": 97]
            while true {
                var page = try #require(try await client.result("feed.list", .object(params)).objectValue)
                page["state"] = nil
                pages.append(.object(page))
                guard let cursor = page["nextCursor"], cursor != .null else { return pages }
                params["cursor"] = cursor
            }
        }
        let expected = try await pages(InMemoryFeedService(demoCount: Self.demoCount))
        #expect(expected.count == 11)
        #expect(try await Self.withFeed(backend) { try await pages($0) } == expected)
    }
}
