import DomainMethods
import FeedDomain
import GRDB
import MailDomain
import SwitchboardCore
import SwitchboardStorage
import Testing

/// Change logs are pruned as they grow, in memory and in SQLite alike: a long session's log stays
/// bounded, and a state older than what is kept is answered `cannotCalculateChanges`.
@Suite("Change logs are pruned as they grow")
struct ChangeLogPruningTests {
    @Test("the in-memory log keeps at most retained + interval records and refuses states before them")
    func inMemoryLogStaysBounded() throws {
        var log = InMemoryChangeLog(retained: 10, interval: 5)
        let start = log.state(domain: "feed")
        var middle = start
        for index in 1...1_000 {
            log.record(itemID: "i\(index)", kind: .created)
            #expect(log.count <= 15)
            if index == 990 { middle = log.state(domain: "feed") }
        }
        #expect(throws: ServiceError.cannotCalculateChanges(state: start, reason: "is older than the change log kept")) {
            _ = try log.changes(domain: "feed", since: start, limit: 50)
        }
        let recent = try log.changes(domain: "feed", since: middle, limit: 50)
        #expect(recent.created == (991...1_000).map { "i\($0)" })
        #expect(recent.newState == log.state(domain: "feed") && !recent.hasMoreChanges)
    }

    @Test("the in-memory log reports only the records of the asked scope")
    func inMemoryLogScopes() throws {
        var log = InMemoryChangeLog(retained: 100, interval: 10)
        let start = log.state(domain: "mail")
        log.record(scope: "a", itemID: "x", kind: .created)
        log.record(scope: "b", itemID: "y", kind: .created)
        log.record(scope: "a", itemID: "x", kind: .updated)
        #expect(try log.changes(domain: "mail", scope: "a", since: start, limit: 10).created == ["x"])
        #expect(try log.changes(domain: "mail", scope: "b", since: start, limit: 10).created == ["y"])
    }

    @Test("the in-memory services prune as they write: an old state is refused, a recent one answered")
    func inMemoryServicesPrune() async throws {
        let feed = InMemoryFeedService(demoCount: 10, retainedChanges: 20)
        let feedStart = try await feed.state()
        var feedRecent = feedStart
        for index in 1...100 {
            let appended = try await feed.append([DemoFeed.profile(Int64(index))])
            if index == 95 { feedRecent = appended.state }
        }
        await #expect(throws: ServiceError.self) { _ = try await feed.changes(since: feedStart, limit: 50) }
        #expect(try await feed.changes(since: feedRecent, limit: 50).created == ["106", "107", "108", "109", "110"])

        let mail = InMemoryMailService(clock: mailTestClock, demoMessages: 5, retainedChanges: 20)
        let me = DemoAccount.email
        let mailStart = try await mail.state()
        var mailRecent = mailStart
        for index in 1...100 {
            let written = try await mail.markRead(account: me, uids: ["m000001"], read: index % 2 == 0)
            if index == 99 { mailRecent = written.state }
        }
        await #expect(throws: ServiceError.self) { _ = try await mail.changes(account: me, since: mailStart, limit: 50) }
        #expect(try await mail.changes(account: me, since: mailRecent, limit: 50).updated == ["m000001"])
    }

    @Test("the SQLite log is pruned every pruneInterval records, keeping retainedRecords, in the writing transaction")
    func sqliteLogPrunesAsItGrows() async throws {
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteFeedService.migrations)
        let feed = SQLiteFeedService(database: database)
        let start = try await feed.state()
        let total = ChangeTracking.retainedRecords + 2 * ChangeTracking.pruneInterval + 7
        try await database.writer.write { db in
            for index in 1...total { try ChangeLog.record(db, domain: feedDomain, itemID: String(index), kind: .created) }
        }
        let kept = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM change_log") ?? 0 }
        #expect(kept == ChangeTracking.retainedRecords + 7)
        await #expect(throws: ServiceError.self) { _ = try await feed.changes(since: start, limit: 50) }
        let floor = Int64(total - ChangeTracking.retainedRecords - 7)
        let fromFloor = try await feed.changes(since: ChangeTracking.state(domain: feedDomain, sequence: floor), limit: 1)
        #expect(fromFloor.created == [String(floor + 1)])
    }
}
