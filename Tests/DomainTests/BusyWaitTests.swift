import GRDB
@testable import SwitchboardStorage
import Testing

/// `BusyWait`: a connection waits for another connection's lock on SQLite's schedule, and stops
/// waiting when the task it waits for is cancelled. The waits here are an hour long, so a wait that
/// ignored its cancel would hang the test (the suite's time limit ends it), not pass it.
@Suite("Waiting for another connection's lock", .timeLimit(.minutes(5)))
struct BusyWaitTests {
    /// A pool whose writer waits up to an hour, saying on `waits` when it starts waiting, and another
    /// connection holding the write lock.
    static func locked() throws -> (pool: DatabasePool, locker: DatabaseQueue, waits: AsyncStream<Void>, path: String) {
        let path = temporaryDatabasePath()
        let (waits, waiting) = AsyncStream<Void>.makeStream()
        let busy = BusyWait(timeout: .seconds(3_600), waiting: { tries in if tries == 0 { waiting.yield() } })
        let pool = try DatabasePool(path: path, configuration: AppDatabase.configuration(readOnly: false, busy: busy))
        try pool.write { db in try db.execute(sql: "CREATE TABLE item (name TEXT)") }
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let locker = try DatabaseQueue(path: path, configuration: configuration)
        try locker.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        return (pool, locker, waits, path)
    }

    static func names(_ pool: DatabasePool) throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM item") }
    }

    @Test("a write waiting for the lock stops waiting when its task is cancelled, and writes nothing")
    func cancelledWait() async throws {
        let (pool, locker, waits, _) = try Self.locked()
        let write = Task { try await pool.write { db in try db.execute(sql: "INSERT INTO item VALUES ('cancelled')") } }
        var waiting = waits.makeAsyncIterator()
        _ = await waiting.next()
        write.cancel()
        let result = await write.result
        #expect(throws: (any Error).self) { try result.get() }
        // Still locked: the write gave up on its cancel, not because the lock went away.
        try locker.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        #expect(try Self.names(pool) == [])
        try await pool.write { db in try db.execute(sql: "INSERT INTO item VALUES ('after')") }
        #expect(try Self.names(pool) == ["after"])
    }

    @Test("a write that is not cancelled waits for the lock and writes once it is released")
    func waitsForRelease() async throws {
        let (pool, locker, waits, _) = try Self.locked()
        let write = Task { try await pool.write { db in try db.execute(sql: "INSERT INTO item VALUES ('waited')") } }
        var waiting = waits.makeAsyncIterator()
        _ = await waiting.next()
        try locker.inDatabase { db in try db.execute(sql: "COMMIT") }
        try await write.value
        #expect(try Self.names(pool) == ["waited"])
    }

    @Test("the sleeps follow SQLite's own busy schedule: 1, 2, 5 … 100 ms, then 100 ms each")
    func schedule() {
        let expected = [(1, 0), (2, 1), (5, 3), (10, 8), (15, 18), (20, 33), (25, 53), (25, 78), (25, 103), (50, 128),
                        (50, 178), (100, 228), (100, 328), (100, 428)]
        for (tries, step) in expected.enumerated() {
            #expect(BusyWait.step(tries) == step, "try \(tries)")
        }
        // As with sqlite3_busy_timeout(10000): the 109th sleep would pass 10 s (9,928 ms slept before it),
        // so it is cut short; after it no try is left.
        #expect(BusyWait.step(108) == (100, 9_928))
        #expect(BusyWait().retries(after: 109) == false)
        #expect(BusyWait().retries(after: Int.max) == false)
    }
}
