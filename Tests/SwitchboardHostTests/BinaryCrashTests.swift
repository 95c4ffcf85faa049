import GRDB
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a crash leaves behind: answered writes are durable and the database is intact.
@Suite("Crash durability, against the binary", .offCooperativePool)
struct BinaryCrashTests {
    static func arguments(_ database: String) -> [String] {
        ["--db", database, "--feed-items", "100", "--mail-messages", "20", "--now", "2026-01-01T09:00:00Z"]
    }

    @Test("after SIGKILL in the middle of a stream of mail.send, every answered send is in the database, which passes integrity_check")
    func answeredSendsSurviveSIGKILL() throws {
        let folder = try BinaryHarness.temporaryFolder("crash")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/crash.sqlite"

        let host = try SpawnedHost(arguments: Self.arguments(database))
        let sends = 400
        let killAfter = 120
        try host.send((1...sends).map { index in
            BinaryHarness.request(index, "mail.send", #"{"to":"ada@example.com","subject":"crash test \#(index)","text":"body \#(index)"}"#)
        })
        var answered: [String] = []
        while answered.count < killAfter {
            let message = try host.nextMessage()
            let uid = try #require(message["result"]?["message"]?["uid"]?.stringValue, "not a send answer: \(message)")
            answered.append(uid)
        }
        host.signal(SIGKILL)
        let termination = try host.waitForExit()
        #expect(termination == .signaled(SIGKILL), "the host was not killed: \(termination)")
        // Some sends were still running when the host died: the point of the test.
        #expect(host.received.count < sends, "every send finished before the kill; nothing was in flight")

        let again = try SpawnedHost(arguments: Self.arguments(database))
        try again.send(answered.enumerated().map { index, uid in
            BinaryHarness.request(index, "mail.get", #"{"uid":"\#(uid)"}"#)
        })
        var found: [Int64: String] = [:]
        for _ in answered {
            let reply = try again.nextMessage()
            if let id = reply["id"]?.int64Value { found[id] = reply["result"]?["uid"]?.stringValue }
        }
        for (index, uid) in answered.enumerated() {
            #expect(found[Int64(index)] == uid, "answered send \(uid) is missing after the crash")
        }
        again.closeInput()
        #expect(try again.waitForExit() == .exited(0))

        let check = try DatabaseQueue(path: database).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(check == ["ok"])
    }
}
