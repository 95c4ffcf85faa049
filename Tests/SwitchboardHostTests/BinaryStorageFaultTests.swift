import GRDB
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Storage that fails under the host: a database another process keeps locked, and a disk that is
/// full (a file-size limit on the host, `RLIMIT_FSIZE`). Each gives a clear `-32050` naming the file
/// and the cause, not a hang or a crash; what was stored before stays readable and intact.
@Suite("Storage faults, against the binary", .offCooperativePool)
struct BinaryStorageFaultTests {
    typealias H = BinaryHarness

    static func send(_ id: Int, text: String = "body") -> String {
        H.request(id, "mail.send", #"{"to":"ada@example.com","subject":"fault \#(id)","text":"\#(text)"}"#)
    }

    static func integrity(_ database: String) throws -> [String] {
        try DatabaseQueue(path: database).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Runs `body` with a host, in a fresh folder named after `name`, on a database that has stored one
    /// message (`fault 1`) while another connection holds its write lock (`BEGIN EXCLUSIVE`). `body`
    /// ends the lock with `release("COMMIT")` or `release("ROLLBACK")`; one it leaves is rolled back after.
    static func withLockedDatabase(_ name: String,
                                   _ body: (_ host: SpawnedHost, _ database: String, _ release: (String) throws -> Void) throws -> Void) throws {
        let folder = try H.temporaryFolder(name)
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/locked.sqlite"
        let host = try SpawnedHost(arguments: BinaryCrashTests.arguments(database))
        try host.send(Self.send(1))
        #expect(try host.response(to: 1).response["result"] != nil)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let locker = try DatabaseQueue(path: database, configuration: configuration)
        try locker.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        var released = false
        defer { if !released { try? locker.inDatabase { db in try db.execute(sql: "ROLLBACK") } } }
        try body(host, database) { end in
            try locker.inDatabase { db in try db.execute(sql: end) }
            released = true
        }
    }

    @Test("a database another connection keeps locked: a write answers -32050 after the bounded busy wait, reads are served meanwhile, and the write after the release succeeds")
    func lockedDatabase() throws {
        try Self.withLockedDatabase("locked") { host, database, release in
            try host.send([Self.send(2), H.request(3, "host.ping"), H.request(4, "feed.list", #"{"limit":1}"#)])
            let (read, before) = try host.response(to: 4)
            #expect(read["result"]?["items"]?.arrayValue?.count == 1, "a read waited for the lock: \(read)")
            #expect(!before.contains { $0["id"] == 2 }, "the write was answered while the lock was held")
            let refused = try host.response(to: 2, within: 120_000).response
            #expect(H.errorCode(refused) == -32050, "\(refused)")
            #expect(refused["error"]?["data"]?["path"] == .string(database))
            let cause = refused["error"]?["data"]?["cause"]?.stringValue ?? ""
            #expect(cause.contains("locked"), "\(refused)")

            try release("COMMIT")
            try host.send(Self.send(5))
            #expect(try host.response(to: 5).response["result"]?["message"]?["uid"] != nil)
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
            #expect(try Self.integrity(database) == ["ok"])
        }
    }

    @Test("a write waiting for another connection's lock, cancelled, is answered -32800 while the lock is still held, and nothing is stored")
    func cancelledWhileLocked() throws {
        try Self.withLockedDatabase("locked-cancel") { host, _, release in
            try host.send([Self.send(2), H.request(3, "feed.list", #"{"limit":1}"#)])
            #expect(try host.response(to: 3).response["result"] != nil)
            try host.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#)
            let cancelled = try host.response(to: 2, within: 120_000).response
            #expect(H.errorCode(cancelled) == -32800, "\(cancelled)")

            try release("ROLLBACK")
            try host.send(H.request(4, "mail.search", #"{"query":"fault"}"#))
            let found = try host.response(to: 4).response
            let subjects = found["result"]?["items"]?.arrayValue?.compactMap { $0["subject"]?.stringValue } ?? []
            #expect(subjects.contains("fault 1") && !subjects.contains("fault 2"), "\(found)")
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
        }
    }

    @Test("a write queued behind one that waits for another connection's lock, cancelled, is answered -32800 before the write ahead of it is")
    func cancelledBehindALockedWrite() throws {
        try Self.withLockedDatabase("locked-queue") { host, _, release in
            try host.send([Self.send(2), Self.send(3), H.request(4, "feed.list", #"{"limit":1}"#)])
            #expect(try host.response(to: 4).response["result"] != nil)
            try host.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}"#)
            let (cancelled, before) = try host.response(to: 3, within: 120_000)
            #expect(H.errorCode(cancelled) == -32800, "\(cancelled)")
            #expect(!before.contains { $0["id"] == 2 }, "the write ahead was answered first: the cancelled one waited for it")

            try release("ROLLBACK")
            #expect(try host.response(to: 2, within: 120_000).response["result"]?["message"] != nil, "the write ahead is stored once the lock goes")
            try host.send(H.request(5, "mail.search", #"{"query":"fault"}"#))
            let subjects = try host.response(to: 5).response["result"]?["items"]?.arrayValue?.compactMap { $0["subject"]?.stringValue } ?? []
            #expect(subjects.contains("fault 2") && !subjects.contains("fault 3"), "\(subjects)")
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
        }
    }

    @Test("a full disk (RLIMIT_FSIZE): writes that cannot grow the files answer -32050, earlier writes stay readable, the database stays intact")
    func fullDisk() throws {
        let folder = try H.temporaryFolder("full")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/full.sqlite"
        let seed = try H.run(["seed"] + BinaryCrashTests.arguments(database), raw: true)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        var info = stat()
        try #require(stat(database, &info) == 0)
        // The database may not grow much; the write-ahead log fills up after a few large messages.
        let limit = Int(info.st_size) + (512 << 10)
        let host = try SpawnedHost(arguments: ["--fsize=\(limit)", "--", H.binaryPath] + BinaryCrashTests.arguments(database),
                                   executable: "/usr/bin/prlimit")
        let text = String(repeating: "0123456789abcdef", count: 100_000 / 16)
        let sends = 40
        try host.send((1...sends).map { Self.send($0, text: text) })
        var stored: [String] = []
        var failures: [JSONValue] = []
        let answers = try host.answers(to: 1...sends)
        for id in 1...sends {
            let answer = answers[id] ?? .null
            if let uid = answer["result"]?["message"]?["uid"]?.stringValue { stored.append(uid) } else { failures.append(answer) }
        }
        #expect(!stored.isEmpty && !failures.isEmpty, "\(stored.count) stored, \(failures.count) failed")
        for failure in failures {
            #expect(H.errorCode(failure) == -32050, "\(failure)")
            #expect(failure["error"]?["data"]?["path"] == .string(database))
            #expect(failure["error"]?["data"]?["cause"] == "a disk write failed (the disk or a file-size limit may be full)", "\(failure)")
        }
        // Earlier data stays readable in the same process.
        try host.send(stored.enumerated().map { H.request(1_000 + $0.offset, "mail.get", #"{"uid":"\#($0.element)"}"#) })
        let reads = try host.answers(to: stored.indices.map { 1_000 + $0 })
        for (offset, uid) in stored.enumerated() {
            #expect(reads[1_000 + offset]?["result"]?["uid"] == .string(uid))
        }
        host.closeInput()
        let termination = try host.waitForExit()
        #expect(termination == .exited(0), "\(termination): \(host.stderrText)")

        let again = try SpawnedHost(arguments: BinaryCrashTests.arguments(database))
        try again.send(stored.enumerated().map { H.request($0.offset, "mail.get", #"{"uid":"\#($0.element)"}"#) })
        let found = try again.answers(to: stored.indices)
        for (offset, uid) in stored.enumerated() {
            #expect(found[offset]?["result"]?["uid"] == .string(uid), "\(uid) lost")
        }
        try again.send(Self.send(5_000))
        #expect(try again.response(to: 5_000).response["result"] != nil, "without the limit, writes work again")
        again.closeInput()
        #expect(try again.waitForExit() == .exited(0))
        #expect(try Self.integrity(database) == ["ok"])
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): tried once on a scratch folder.
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0, let folder = try? H.temporaryFolder("mount-probe") else { return false }
        defer { _ = system("umount '\(folder)' 2>/dev/null; rmdir '\(folder)'") }
        return system("mount -t tmpfs -o size=64k tmpfs '\(folder)' 2>/dev/null") == 0
    }()

    @Test("a file system that is really full (a small tmpfs): writes answer -32050 'the disk is full', earlier writes stay readable and intact",
          .enabled(if: canMountTmpfs, "mounting a tmpfs needs root"))
    func fullFileSystem() throws {
        let folder = try H.temporaryFolder("enospc")
        defer { _ = system("umount '\(folder)/disk' 2>/dev/null; rm -rf '\(folder)'") }
        let seeded = folder + "/seeded.sqlite"
        let seed = try H.run(["seed"] + BinaryCrashTests.arguments(seeded), raw: true)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        var info = stat()
        try #require(stat(seeded, &info) == 0)
        mkdir(folder + "/disk", 0o755)
        let size = Int(info.st_size) + (768 << 10)
        try #require(system("mount -t tmpfs -o size=\(size) tmpfs '\(folder)/disk'") == 0)
        let database = folder + "/disk/full.sqlite"
        try #require(system("cp '\(seeded)' '\(database)'") == 0)

        let host = try SpawnedHost(arguments: BinaryCrashTests.arguments(database))
        let text = String(repeating: "0123456789abcdef", count: 100_000 / 16)
        let sends = 40
        try host.send((1...sends).map { Self.send($0, text: text) })
        let answers = try host.answers(to: 1...sends)
        let stored = (1...sends).compactMap { answers[$0]?["result"]?["message"]?["uid"]?.stringValue }
        let failures = (1...sends).compactMap { answers[$0] }.filter { $0["error"] != nil }
        #expect(!stored.isEmpty && !failures.isEmpty, "\(stored.count) stored, \(failures.count) failed")
        for failure in failures {
            #expect(H.errorCode(failure) == -32050, "\(failure)")
            #expect(failure["error"]?["data"]?["cause"] == "the disk is full", "\(failure)")
        }
        try host.send(stored.enumerated().map { H.request(1_000 + $0.offset, "mail.get", #"{"uid":"\#($0.element)"}"#) })
        let reads = try host.answers(to: stored.indices.map { 1_000 + $0 })
        for (offset, uid) in stored.enumerated() {
            #expect(reads[1_000 + offset]?["result"]?["uid"] == .string(uid), "\(uid) is not readable on the full disk")
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0), "\(host.stderrText)")

        // Copied off the full disk (with its write-ahead log), everything acknowledged is there.
        let copy = folder + "/copy.sqlite"
        try #require(system("cp '\(database)' '\(copy)' && (test ! -e '\(database)-wal' || cp '\(database)-wal' '\(copy)-wal')") == 0)
        let again = try SpawnedHost(arguments: BinaryCrashTests.arguments(copy))
        try again.send(stored.enumerated().map { H.request($0.offset, "mail.get", #"{"uid":"\#($0.element)"}"#) })
        let found = try again.answers(to: stored.indices)
        for (offset, uid) in stored.enumerated() {
            #expect(found[offset]?["result"]?["uid"] == .string(uid), "\(uid) lost")
        }
        again.closeInput()
        #expect(try again.waitForExit() == .exited(0))
        #expect(try Self.integrity(copy) == ["ok"])
    }
}
