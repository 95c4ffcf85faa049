import Dispatch
import FeedDomain
import GRDB
import SwitchboardStorage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `AppDatabase.read` on a file: each thread reads with a connection of its own.
@Suite("Reads on each thread's own connection")
struct ThreadReadersTests {
    static func count(_ database: AppDatabase) throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM feed_item") ?? -1 }
    }

    @Test("reads from many threads at once all answer, and a read sees every write committed before it")
    func concurrentReads() async throws {
        let database = try AppDatabase(path: temporaryDatabasePath(), migrations: SQLiteFeedService.migrations)
        try await database.writer.write { db in try SQLiteFeedService.seed(db, count: 100) }
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

    @Test("the threads' connections close with the database")
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
