import GRDB
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A `chat.send` answered `pending` is a promise to store the message. The host keeps it at exit:
/// when the drain time runs out while another program holds the database, and when the client has
/// closed its end of the output. A client that reads its answers late gets every one of them.
@Suite("Promises kept at exit", .offCooperativePool)
struct BinaryPromisedWritesTests {
    typealias H = BinaryHarness

    /// A seeded database in a folder of its own, and a connection of the test's holding its write
    /// lock (`BEGIN EXCLUSIVE`) until the test commits.
    static func lockedDatabase() throws -> (folder: String, path: String, holder: DatabaseQueue) {
        let folder = try BinaryStorageTests.folder()
        let path = folder + "/promised.sqlite"
        let seed = try H.run(["seed", "--db", path] + BinaryStorageTests.small, raw: true, timeout: 60_000)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: configuration)
        try holder.writeWithoutTransaction { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        return (folder, path, holder)
    }

    static func send(_ id: Int) -> String {
        H.request(id, "chat.send", #"{"roomId":"grp-team","text":"promised","clientMessageId":"k\#(id)"}"#)
    }

    static func storedCount(_ path: String) throws -> Int? {
        try DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message WHERE text = 'promised'")
        }
    }

    /// Reads until each of `ids` has its `pending` answer (other messages may come between).
    static func pendingAnswers(_ host: SpawnedHost, _ ids: ClosedRange<Int>) throws {
        var answered: Set<Int64> = []
        while answered.count < ids.count {
            // A loaded machine may be slow: the harness's time limit is a hang guard only.
            let message = try host.nextMessage(within: 120_000)
            guard let id = message["id"]?.int64Value else { continue }
            #expect(message["result"]?["message"]?["state"] == "pending", "\(message)")
            answered.insert(id)
        }
    }

    /// Waits for the host's line saying it waits for promised writes, unless it ends first (every store
    /// had failed already: the database stayed locked past SQLite's 10 s busy wait on a slow machine).
    static func awaitPromisedWait(_ host: SpawnedHost) {
        _ = try? host.waitForStderr(containing: "writes promised in answers", within: 120_000)
    }

    /// Each send's store was done before the host exited: stored, or failed and logged as such (the
    /// lock may outlast SQLite's busy wait on a slow machine). Before, the host exited with neither.
    static func expectEachDone(_ host: SpawnedHost, path: String) throws {
        host.readRestOfStderr()
        let stored = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT client_message_id FROM chat_message WHERE text = 'promised'")
        }
        for id in 1...3 {
            let done = stored.contains("k\(id)") || host.stderrText.contains("could not store k\(id):")
            #expect(done, "k\(id) neither stored nor failed: \(stored) \(host.stderrText)")
        }
    }

    @Test("end of input with the drain time spent while the database is locked: each send answered pending is stored (or fails) and is confirmed before the host exits")
    func drainTimeSpent() throws {
        let (folder, path, holder) = try Self.lockedDatabase()
        defer { _ = system("rm -rf '\(folder)'") }
        let host = try SpawnedHost(arguments: ["--db", path, "--drain-timeout", "0", "--log-level", "info"] + BinaryStorageTests.small)
        try host.send((1...3).map(Self.send))
        try Self.pendingAnswers(host, 1...3)
        host.closeInput()
        // The drain's time is spent at once; the host waits for the stores it promised.
        Self.awaitPromisedWait(host)
        try holder.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        let states = try host.readToEndOfOutput(within: 120_000).filter { $0["method"] == "chat.messageState" }
        #expect(Set(states.compactMap { $0["params"]?["clientMessageId"]?.stringValue }) == ["k1", "k2", "k3"], "\(states)")
        #expect(try host.waitForExit(within: 120_000) == .exited(0))
        let sent = states.filter { $0["params"]?["state"] == "sent" }.count
        #expect(try Self.storedCount(path) == sent)
        try Self.expectEachDone(host, path: path)
    }

    @Test("a client that closed its end of the output: each send answered pending is stored (or fails) before the host exits")
    func outputClosed() throws {
        let (folder, path, holder) = try Self.lockedDatabase()
        defer { _ = system("rm -rf '\(folder)'") }
        let host = try SpawnedHost(arguments: ["--db", path, "--log-level", "info"] + BinaryStorageTests.small)
        try host.send((1...3).map(Self.send))
        try Self.pendingAnswers(host, 1...3)
        host.closeOutput()
        // The next answer finds the output closed (EPIPE), which ends the host: after its promises.
        try host.send(H.request(4, "host.ping"))
        Self.awaitPromisedWait(host)
        try holder.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        #expect(try host.waitForExit(within: 120_000) == .exited(0))
        try Self.expectEachDone(host, path: path)
    }

    @Test("end of input with a client that reads late: every answer arrives, whole", arguments: [0, 300])
    func lateReader(drainTimeout: Int) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory", "--drain-timeout", "\(drainTimeout)", "--log-level", "info"])
        // 16 answers of ~125 KB (2 MB, within the output bound) to 16 small requests: written at once,
        // before the client reads more than a pipeful.
        let count = 16
        try host.send((1...count).map { H.request($0, "rpc.discover") })
        host.closeInput()
        // The host says it waits for the client (it used to exit a second past the drain time, its
        // answers cut mid-frame); only then does the client read.
        try host.waitForStderr(containing: "waiting for the client to read")
        let answers = try host.readToEndOfOutput()
        #expect(answers.count == count && Set(answers.compactMap { $0["id"]?.int64Value }) == Set(1...Int64(count)))
        #expect(answers.allSatisfy { $0["result"]?["openrpc"] != nil })
        #expect(try host.waitForExit() == .exited(0))
    }
}
