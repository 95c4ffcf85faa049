import Dispatch
import FeedDomain
import GRDB
import JSONRPC
import Synchronization
@testable import SwitchboardStorage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `AppDatabase.read` on a file: each read borrows a read-only connection no other read is using
/// (`ReadConnections`), opening one when all are in use and keeping a few idle ones.
@Suite("Reads on borrowed read-only connections")
struct ReadConnectionsTests {
    static func count(_ database: AppDatabase) throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") ?? -1 }
    }

    static func count(_ connections: ReadConnections) throws -> Int {
        try connections.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") ?? -1 }
    }

    /// A database of 100 feed items; keep it while reading (its writer keeps the WAL files).
    static func seeded() async throws -> (AppDatabase, String) {
        let path = temporaryDatabasePath()
        let database = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations)
        try await database.writer.write { db in try SQLiteFeedService.seed(db, count: 100) }
        return (database, path)
    }

    /// Runs `body` on `count` new threads at once and returns when all have finished.
    static func onNewThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            do {
                try OSThread.detach(name: "read-connections-test") {
                    body(index)
                    done.leave()
                }
            } catch {
                Issue.record("\(error)")
                done.leave()
            }
        }
        done.wait()
    }

    @Test("reads from many threads at once all answer, and a read sees every write committed before it")
    func concurrentReads() async throws {
        let (database, _) = try await Self.seeded()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try Self.count(database) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 100, count: 32))

        try await database.write { db in try db.execute(sql: "DELETE FROM feed_item WHERE id > 50") }
        let after = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try Self.count(database) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(after == Array(repeating: 50, count: 32))
    }

    @Test("one connection serves reads from 40 threads that read one after another")
    func reusedAcrossThreads() async throws {
        let (database, path) = try await Self.seeded()
        let connections = ReadConnections(path: path, idleLimit: 4)
        let before = Self.descriptors(to: path)
        let counts = Mutex<[Int]>([])
        for _ in 0..<40 {
            Self.onNewThreads(1) { _ in
                let count = (try? Self.count(connections)) ?? -1
                counts.withLock { $0.append(count) }
            }
        }
        #expect(counts.withLock { $0 } == Array(repeating: 100, count: 40))
        #expect(connections.openCount == 1)
        #expect(Self.descriptors(to: path) - before == 1)
        withExtendedLifetime(database) {}
    }

    @Test("reads at once each get a connection of their own; no more than the idle limit stay open after")
    func boundedUnderConcurrency() async throws {
        let (database, path) = try await Self.seeded()
        let connections = ReadConnections(path: path, idleLimit: 3)
        let before = Self.descriptors(to: path)
        let readers = 12
        for round in 0..<5 {
            // Every read waits inside its transaction until all twelve are inside: twelve connections
            // at once, none waiting for another's (a read that waited for one would never get in).
            // They look at the count of open connections, then wait again until all have looked.
            let inside = DispatchGroup(), looked = DispatchGroup()
            for _ in 0..<readers { inside.enter(); looked.enter() }
            let seen = Mutex<(counts: [Int], openInside: [Int], timedOut: Bool)>(([], [], false))
            Self.onNewThreads(readers) { _ in
                let count = (try? connections.read { db -> Int in
                    inside.leave()
                    let allInside = inside.wait(timeout: .now() + .seconds(hangGuardSeconds)) == .success
                    let open = connections.openCount
                    looked.leave()
                    let allLooked = looked.wait(timeout: .now() + .seconds(hangGuardSeconds)) == .success
                    seen.withLock {
                        $0.openInside.append(open)
                        if !allInside || !allLooked { $0.timedOut = true }
                    }
                    return try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") ?? -1
                }) ?? -1
                seen.withLock { $0.counts.append(count) }
            }
            let result = seen.withLock { $0 }
            #expect(!result.timedOut, "round \(round)")
            #expect(result.counts == Array(repeating: 100, count: readers), "round \(round)")
            #expect(result.openInside.allSatisfy { $0 == readers }, "round \(round): \(result.openInside)")
            #expect(connections.openCount == 3, "round \(round)")
            #expect(connections.idleCount == 3, "round \(round)")
            // SQLite keeps a closed connection's descriptor for the next open of the file while another
            // connection of this process holds a lock on it (the database's writer always does: closing
            // it would drop the process's POSIX locks), so descriptors stay at the most ever open at
            // once, and do not grow from round to round.
            #expect(Self.descriptors(to: path) - before <= readers, "round \(round)")
        }
        withExtendedLifetime(database) {}
    }

    @Test("a connection that cannot be opened is not counted, and the read throws")
    func failedOpen() throws {
        let connections = ReadConnections(path: "/nonexistent-\(getpid())/none.sqlite")
        #expect(throws: (any Error).self) { try Self.count(connections) }
        #expect(connections.openCount == 0)
    }

    @Test("the connections close with the database")
    func connectionsCloseWithTheDatabase() throws {
        let path = temporaryDatabasePath()
        do {
            let database = try AppDatabase(path: path, migrations: SQLiteFeedService.migrations)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in _ = try? Self.count(database) }
            #expect(Self.descriptors(to: path) > 0)
        }
        #expect(Self.descriptors(to: path) == 0)
    }

    /// How many of this process's descriptors are open on `path`.
    static func descriptors(to path: String) -> Int {
        guard let folder = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var target = [CChar](repeating: 0, count: 4096)
            let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard length > 0 else { continue }
            let text = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text == path { count += 1 }
        }
        return count
    }
}
