import Dispatch
import DomainMethods
import FeedDomain
import GRDB
import JSONRPC
import Synchronization
import SwitchboardCore
import SwitchboardStorage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How a domain's service is opened: `LazyService` (once, on first use, again after a failure) and
/// `AppDatabase`'s read-first opening of a database that is current.
@Suite("Opening services and databases")
struct StoreOpeningTests {
    struct Refusal: Error, Equatable {}

    @Test("callers arriving together share one opening and get the same service")
    func oneOpeningForManyCallers() async throws {
        let opens = Atomic<Int>(0)
        let service = LazyService<any FeedService>(named: "feed") {
            opens.add(1, ordering: .relaxed)
            return InMemoryFeedService(demoCount: 10)
        }
        let counts = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<16 { group.addTask { try await service.get().count() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 10, count: 16))
        #expect(opens.load(ordering: .relaxed) == 1)
    }

    @Test("a caller cancelled while the opening runs throws at once; the opening goes on and the next caller gets its service")
    func cancelledWhileOpening() async throws {
        let opening = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let opens = Atomic<Int>(0)
        let service = LazyService<any FeedService>(named: "feed") {
            opens.add(1, ordering: .relaxed)
            opening.signal()
            release.wait()  // as another process setting the database up holds it
            return InMemoryFeedService(demoCount: 4)
        }
        let waiting = Task { try await service.get().count() }
        // The opening has started (on a thread of its own): the caller waits for it.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                opening.wait()
                continuation.resume()
            }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        release.signal()
        #expect(try await service.get().count() == 4)
        #expect(opens.load(ordering: .relaxed) == 1, "the opening went on; the next caller did not start another")
    }

    @Test("a failed opening is answered to the caller, and the next call opens again")
    func failedOpeningIsTriedAgain() async throws {
        let opens = Atomic<Int>(0)
        let service = LazyService<any FeedService>(named: "feed") {
            guard opens.add(1, ordering: .relaxed).newValue > 1 else { throw Refusal() }
            return InMemoryFeedService(demoCount: 3)
        }
        await #expect(throws: Refusal.self) { try await service.get() }
        #expect(try await service.get().count() == 3)
        #expect(try await service.get().count() == 3)
        #expect(opens.load(ordering: .relaxed) == 2)
    }

    @Test("the opening's end is reported once, with its error when it failed")
    func openingEvents() async throws {
        let ends = Mutex<[String]>([])
        let events = ServiceOpeningEvents(finished: { error in ends.withLock { $0.append(error == nil ? "opened" : "failed") } })
        let failing = Atomic<Bool>(true)
        let service = LazyService<any FeedService>(named: "feed", events: events) {
            if failing.exchange(false, ordering: .relaxed) { throw Refusal() }
            return InMemoryFeedService(demoCount: 1)
        }
        _ = try? await service.get()
        _ = try await service.get()
        _ = try await service.get()
        #expect(ends.withLock { $0 } == ["failed", "opened"])
    }

    /// A file database with 50 feed items, set up and closed (its WAL checkpointed and removed).
    static func closedDatabase() async throws -> String {
        let path = temporaryDatabasePath()
        do {
            let database = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations)
            try await database.writer.write { db in try SQLiteFeedService.seed(db, count: 50) }
        }
        return path
    }

    static func walSize(_ path: String) -> Int {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
    }

    @Test("a current database opens for reading only: reads write no WAL frame, and the first write opens the writer and is stored")
    func currentDatabaseOpensForReading() async throws {
        let path = try await Self.closedDatabase()
        #expect(Self.walSize(path) == 0)
        let database = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations, current: { _ in true })
        let feed = SQLiteFeedService(database: database)
        #expect(try await feed.count() == 50)
        #expect(try await feed.item(id: 7)?.id == 7)
        #expect(Self.walSize(path) == 0, "a read wrote to the WAL")
        let appended = try await feed.append([DemoFeed.profile(1)])
        #expect(appended.value.map(\.id) == [51])
        #expect(try await feed.count() == 51)
        #expect(Self.walSize(path) > 0)
    }

    @Test("a database the current check does not accept is set up under the lock as before (its missing migration applied)")
    func notCurrentIsSetUp() async throws {
        let path = try await Self.closedDatabase()
        let prepared = Atomic<Int>(0)
        let database = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations + [
            DatabaseMigration("feed-note-v1") { db in try db.execute(sql: "CREATE TABLE feed_note (id INTEGER PRIMARY KEY)") },
        ], current: { _ in true }, prepare: { _ in prepared.add(1, ordering: .relaxed) })
        #expect(prepared.load(ordering: .relaxed) == 1)
        #expect(try database.read { db in try db.tableExists("feed_note") })
    }

    @Test("a database with a migration this build does not know is refused, checked first or not", arguments: [true, false])
    func newerDatabaseIsRefused(checkedFirst: Bool) async throws {
        let path = try await Self.closedDatabase()
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('from-the-future-v1')")
        }
        let current: ((Database) throws -> Bool)? = checkedFirst ? { _ in true } : nil
        #expect {
            _ = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations, current: current)
        } throws: { error in
            guard case .storageUnavailable(let errorPath, let cause) = error as? ServiceError else { return false }
            return errorPath == path && cause.hasPrefix("was made by a newer switchboard")
        }
    }
    @Test("a reset refuses while another AppDatabase has the file open, and deletes nothing; once that one is gone it starts afresh")
    func resetRefusedWhileOpen() async throws {
        let path = try await Self.closedDatabase()
        do {
            let open = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations, current: { _ in true })
            #expect(throws: DatabaseInUse(path: path)) {
                _ = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations, reset: true)
            }
            #expect(try await SQLiteFeedService(database: open).count() == 50)
            let appended = try await SQLiteFeedService(database: open).append([DemoFeed.profile(1)])
            #expect(appended.value.map(\.id) == [51], "the open database is still the file on disk")
        }
        let fresh = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations, reset: true)
        #expect(try await SQLiteFeedService(database: fresh).count() == 0)
    }

    @Test("an opener that comes while a reset sets the file up waits for it, then reads what the reset made")
    func openerWaitsForReset() async throws {
        let path = try await Self.closedDatabase()
        let waiting = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let found = OpenerCount()
        _ = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations, reset: true, prepare: { database in
            // The file is deleted and made again, its schema applied, nothing seeded yet.
            try OSThread.detach(name: "reset-opener") {
                let opened = try? AppDatabase(path: path, migrations: SQLiteFeedService.migrations, current: { _ in true },
                                              waiting: { waiting.signal() })
                let count = opened.flatMap { try? $0.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") } }
                found.count.withLock { $0 = count }
                done.signal()
            }
            #expect(waiting.wait(timeout: .now() + 60) == .success, "the opener did not wait for the reset")
            try database.writer.write { db in try SQLiteFeedService.seed(db, count: 7) }
        })
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(found.count.withLock { $0 } == 7)
    }
}

/// What the opener of ``StoreOpeningTests/openerWaitsForReset()`` counted, from its thread.
private final class OpenerCount: Sendable {
    let count = Mutex<Int?>(nil)
}
