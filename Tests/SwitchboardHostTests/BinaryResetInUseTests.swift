import Foundation
import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `seed --reset` against the binary while other switchboard processes have the database open: it
/// refuses and touches nothing (a host writing into a deleted file would answer writes that are
/// then lost), and resets once they are gone, however they ended.
@Suite("seed --reset and a database in use, against the binary", .offCooperativePool)
struct BinaryResetInUseTests {
    typealias H = BinaryHarness

    static let small = ["--feed-items", "100", "--mail-messages", "20", "--calendar-events", "4", "--now", "2026-01-01T09:00:00Z"]

    static func run(_ arguments: [String]) throws -> H.Run {
        try H.run(arguments, raw: true, timeout: 60_000)
    }

    static func send(_ subject: String) -> String {
        #"{"to":["ada@example.com"],"subject":"\#(subject)","text":"x"}"#
    }

    /// How many messages a fresh `call` process finds for `query`.
    static func found(_ query: String, in database: String) throws -> Int? {
        let search = try run(["call", "mail.search", #"{"query":"\#(query)"}"#, "--db", database])
        #expect(search.termination == .exited(0), "\(search.stderr)")
        return try JSONValue(parsing: search.stdout)["items"]?.arrayValue?.count
    }

    @Test("while a serve host has the database open, seed --reset exits 1 with one line and the host's next write is stored; once it exits, the reset works")
    func resetRefusedWhileServeHostHasItOpen() throws {
        let folder = try H.temporaryFolder("reset-in-use")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/x.sqlite"
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))

        let host = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try host.send(H.request(1, "mail.send", Self.send("beforereset")))
        #expect(try host.response(to: 1, within: 60_000).response["result"]?["message"]?["subject"] == "beforereset")

        let refused = try Self.run(["seed", "--reset", "--db", database] + Self.small)
        #expect(refused.termination == .exited(1))
        #expect(refused.stderr == "switchboard: cannot reset: \(database) is open in another switchboard process; stop it first\n")
        #expect(refused.stdout.isEmpty)

        try host.send(H.request(2, "mail.send", Self.send("afterreset")))
        #expect(try host.response(to: 2, within: 60_000).response["result"]?["message"]?["subject"] == "afterreset")
        #expect(try Self.found("afterreset", in: database) == 1, "the host's answered write is not in the file")
        #expect(try Self.found("beforereset", in: database) == 1)

        host.closeInput()
        #expect(try host.waitForExit(within: 60_000) == .exited(0))
        let reset = try Self.run(["seed", "--reset", "--db", database] + Self.small)
        #expect(reset.termination == .exited(0), "\(reset.stderr)")
        #expect(reset.stdout.hasPrefix("seeded \(database): mail (20 messages)"), "\(reset.stdout)")
        #expect(try Self.found("afterreset", in: database) == 0, "the reset did not make the database afresh")
    }

    @Test("a host killed with SIGKILL holds nothing: seed --reset works after it, and a host that only read refuses it too")
    func killedHostDoesNotBlockReset() throws {
        let folder = try H.temporaryFolder("reset-killed")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/x.sqlite"
        #expect(try Self.run(["seed", "--db", database] + Self.small).termination == .exited(0))

        // A current database opens for reading only: no writer, no setup lock; in use all the same.
        let host = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try host.send(H.request(1, "inbox.list", #"{"limit":1}"#))
        #expect(try host.response(to: 1, within: 60_000).response["result"]?["items"]?.arrayValue?.count == 1)
        let refused = try Self.run(["seed", "--reset", "--db", database] + Self.small)
        #expect(refused.termination == .exited(1))
        #expect(refused.stderr == "switchboard: cannot reset: \(database) is open in another switchboard process; stop it first\n")

        host.signal(SIGKILL)
        #expect(try host.waitForExit(within: 60_000) == .signaled(SIGKILL))
        let reset = try Self.run(["seed", "--reset", "--db", database] + Self.small)
        #expect(reset.termination == .exited(0), "\(reset.stderr)")
    }
}
