import GRDB
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How a process opens a database that is set up already (issue 21 point 3, issue 23 point 1), against
/// the binary: reads write nothing, a write still works after a read-only open, set-up still happens
/// when something is missing, and a database a newer switchboard migrated is refused.
@Suite("Opening a current database, against the binary", .offCooperativePool)
struct BinaryStoreOpeningTests {
    typealias H = BinaryHarness

    static let small = BinaryStorageTests.small

    /// What a file looks like from outside: its bytes, size and modification time (nil: no file).
    struct FileState: Equatable, CustomStringConvertible {
        var bytes: [UInt8]
        var modified: timespec

        static func of(_ path: String) -> FileState? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
            var done = 0
            while done < bytes.count {
                let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
                guard count > 0 else { break }
                done += count
            }
            return FileState(bytes: Array(bytes.prefix(done)), modified: info.st_mtim)
        }

        static func == (lhs: FileState, rhs: FileState) -> Bool {
            lhs.bytes == rhs.bytes && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
        }

        var description: String { "\(bytes.count) bytes, modified \(modified.tv_sec).\(modified.tv_nsec)" }
    }

    /// The database and its WAL as files: the WAL counts as unchanged when it stays absent or empty.
    static func snapshot(_ database: String) -> (database: FileState?, wal: FileState?) {
        let wal = FileState.of(database + "-wal")
        return (FileState.of(database), wal.flatMap { $0.bytes.isEmpty ? nil : $0 })
    }

    /// A seeded database closed cleanly (`seed` checkpoints the WAL into the file and removes it).
    static func seeded(_ folder: String, _ name: String) throws -> String {
        let database = folder + "/" + name
        let seed = try BinaryStorageTests.run(["seed", "--db", database] + small)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        return database
    }

    @Test("a read-only one-shot call leaves the database's bytes and modification time as they were, and writes no WAL")
    func oneShotReadWritesNothing() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = try Self.seeded(folder, "read.sqlite")
        let before = Self.snapshot(database)
        #expect(before.database != nil)
        for id in [7, 3] {
            let call = try BinaryStorageTests.run(["call", "feed.get", #"{"id":\#(id)}"#, "--db", database] + Self.small)
            #expect(call.termination == .exited(0), "\(call.stderr)")
            #expect(try JSONValue(parsing: call.stdout)["id"] == .integer(Int64(id)))
            let after = Self.snapshot(database)
            #expect(after.database == before.database, "the database file changed: \(String(describing: before.database)) → \(String(describing: after.database))")
            #expect(after.wal == nil, "the call wrote \(String(describing: after.wal)) to the WAL")
        }
    }

    @Test("a session that reads every domain leaves the database and its WAL as they were")
    func sessionOfReadsWritesNothing() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = try Self.seeded(folder, "reads.sqlite")
        let before = Self.snapshot(database)
        let host = try SpawnedHost(arguments: ["--db", database] + Self.small)
        let requests: [(String, String)] = [
            ("feed.get", #"{"id":5}"#), ("feed.list", #"{"limit":2}"#), ("inbox.list", #"{"limit":2}"#), ("mail.folders", "{}"),
            ("chat.rooms", "{}"), ("chat.history", #"{"roomId":"dm-u0-u1","limit":2}"#), ("catalog.sectors", "{}"),
            ("catalog.brochures", #"{"limit":2}"#), ("calendar.agenda", #"{"from":"2026-01-01","to":"2026-01-07","timeZone":"UTC"}"#),
            ("calendar.day", #"{"date":"2026-01-02","timeZone":"UTC"}"#),
        ]
        for (index, (method, params)) in requests.enumerated() {
            try host.send(H.request(index + 1, method, params))
            let answer = try host.response(to: .integer(Int64(index + 1)), within: 60_000).response
            #expect(answer["result"] != nil, "\(method): \(answer)")
        }
        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
        let after = Self.snapshot(database)
        #expect(after.database == before.database, "the database file changed")
        #expect(after.wal == nil, "the session wrote \(String(describing: after.wal)) to the WAL")
    }

    @Test("after a read-only open, a write in the same session is stored, pushed to a subscriber and read back by the next process")
    func writeAfterReadOnlyOpen() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = try Self.seeded(folder, "write.sqlite")
        let host = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try host.send(H.request(1, "calendar.get", #"{"id":"nope"}"#))
        #expect(try host.response(to: 1, within: 60_000).response["error"]?["code"] != nil)
        try host.send(H.request(2, "calendar.subscribe"))
        let subscribed = try host.response(to: 2, within: 60_000).response
        #expect(subscribed["result"]?["subscriptionId"] != nil, "\(subscribed)")
        try host.send(H.request(3, "calendar.create",
                                #"{"id":"after-read","title":"after a read","start":"2026-01-02T10:00:00","timeZone":"UTC","duration":"PT1H"}"#))
        let (created, before) = try host.response(to: 3, within: 60_000)
        #expect(created["result"] != nil, "\(created)")
        var changed = before.first { $0["method"] == "calendar.changed" }
        while changed == nil {
            let message = try host.nextMessage(within: 60_000)
            if message["method"] == "calendar.changed" { changed = message }
        }
        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
        let read = try BinaryStorageTests.run(["call", "calendar.get", #"{"id":"after-read"}"#, "--db", database])
        #expect(read.termination == .exited(0), "\(read.stderr)")
        #expect(try JSONValue(parsing: read.stdout)["event"]?["title"] == "after a read", "\(read.stdout)")
    }

    @Test("a database a newer switchboard migrated is refused, by a one-shot call and in a session, and left as it was")
    func newerSchemaIsRefused() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = try Self.seeded(folder, "newer.sqlite")
        try DatabaseQueue(path: database).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('from-the-future-v1')")
        }
        let before = Self.snapshot(database)
        let call = try BinaryStorageTests.run(["call", "feed.get", #"{"id":1}"#, "--db", database])
        #expect(call.termination == .exited(1))
        #expect(call.stdout.isEmpty)
        #expect(call.stderr.contains("was made by a newer switchboard"), "\(call.stderr)")
        let host = try SpawnedHost(arguments: ["--db", database])
        try host.send(H.request(1, "inbox.list", #"{"limit":1}"#))
        let refused = try host.response(to: 1, within: 60_000).response
        #expect(refused["error"]?["code"] == -32050, "\(refused)")
        #expect(refused["error"]?["data"]?["cause"]?.stringValue?.hasPrefix("was made by a newer switchboard") == true, "\(refused)")
        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
        #expect(Self.snapshot(database).database == before.database)
    }

    @Test("a database missing a migration is migrated, and one missing a domain's demo data is seeded, before the call answers")
    func somethingMissingIsSetUp() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = try Self.seeded(folder, "behind.sqlite")
        // As a database of an older switchboard: the chat's demo data and the last migration missing.
        try DatabaseQueue(path: database).write { db in
            try db.execute(sql: "DELETE FROM meta WHERE key = 'seed/chat'; DELETE FROM chat_message; DELETE FROM chat_member; DELETE FROM chat_room")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'meta-seed-per-domain-v1'")
        }
        let call = try BinaryStorageTests.run(["call", "chat.rooms", "--db", database] + Self.small)
        #expect(call.termination == .exited(0), "\(call.stderr)")
        #expect(try JSONValue(parsing: call.stdout)["items"]?.arrayValue?.isEmpty == false, "\(call.stdout)")
        let applied = try DatabaseQueue(path: database).read { db in
            try Bool.fetchOne(db, sql: "SELECT count(*) = 1 FROM grdb_migrations WHERE identifier = 'meta-seed-per-domain-v1'")
        }
        #expect(applied == true, "the missing migration was not applied")
    }
}
