import Dispatch
import GRDB
@testable import SwitchboardStorage
import Testing

/// `CancellableReads`: a read on a borrowed read-only connection stops when its task is cancelled. The
/// read here never ends on its own, so one that ignored its cancel would hang the test (the suite's
/// time limit ends it), not pass it.
@Suite("Cancelled reads stop", .timeLimit(.minutes(5)))
struct CancellableReadsTests {
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

    @Test("a read that would run for ever stops when its task is cancelled, and the connection serves the next read",
          arguments: [false, true])
    func endlessRead(oneStatement: Bool) async throws {
        let (database, _) = try await ReadConnectionsTests.seeded()
        let started = DispatchSemaphore(value: 0)
        let read = Task {
            started.signal()
            return oneStatement ? try database.readStatement { db in try Int.fetchOne(db, sql: Self.endless) }
                : try database.read { db in try Int.fetchOne(db, sql: Self.endless) }
        }
        // Cancelled from a thread outside the cooperative pool, which the endless reads may fill.
        DispatchQueue.global().async {
            started.wait()
            read.cancel()
        }
        let result = await read.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try ReadConnectionsTests.count(database) == 100)
    }

    @Test("a read in a request cancelled before it began reads nothing")
    func cancelledBeforeItBegan() async throws {
        let (database, _) = try await ReadConnectionsTests.seeded()
        let read = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") }
        }
        await #expect(throws: CancellationError.self) { try await read.value }
    }

    @Test("a long read in a task that is not cancelled runs to its end")
    func uncancelledRead() async throws {
        let (database, _) = try await ReadConnectionsTests.seeded()
        let count = try database.read { db in
            try Int.fetchOne(db, sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT count(*) FROM c")
        }
        #expect(count == 200_000)
    }
}
