#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A large `mail.import` in one process does not lock another process out of the database: the
/// import commits a batch at a time, and the other process writes between batches.
@Suite("Binary: writing while mail.import runs", .offCooperativePool)
struct BinaryImportWriterTests {
    typealias Folders = BinaryImportTests.Folders

    @Test("another process can write the database while a large import runs (on its first progress report)")
    func writerDuringImport() throws {
        let folders = try Folders()
        let count = 2_000
        folders.write(Folders.inbox(count: count, prefix: "c"), to: folders.allowed + "/chain.json")
        let store = ["--db", folders.base + "/mail.sqlite", "--feed-items", "0", "--mail-messages", "0", "--now", "2026-01-01T09:00:00Z"]
        let host = try SpawnedHost(arguments: ["serve"] + store + ["--allow-read", folders.allowed])
        let params = JSONValue.object(["path": .string(folders.allowed + "/chain.json"), "_meta": ["progressToken": "imp"]]).jsonText()
        try host.send(BinaryHarness.request(1, "mail.import", params))
        // Opening a fresh database reports its own progress (`stage`) first; the import's follows.
        var first = try host.nextMessage(within: 120_000)
        while first["params"]?["value"]?["stage"] != nil { first = try host.nextMessage(within: 120_000) }
        #expect(first["method"] == "$/progress" && first["params"]?["value"]?["done"] == 500, "\(first)")
        // The import goes on in the host while the other process sends.
        let send = try BinaryHarness.run(["call"] + store + ["mail.send", #"{"to":"ada@example.com","subject":"during the import","text":"hi"}"#],
                                         raw: true, timeout: 120_000)
        #expect(send.termination == .exited(0), "\(send.stderr)")
        #expect(send.stdout.contains("\"during the import\""), "\(send.stdout)")
        let (response, progress) = try host.response(to: 1, within: 300_000)
        #expect(response["result"]?["imported"] == .integer(Int64(count)), "\(response)")
        #expect(progress.filter { $0["params"]?["value"]?["stage"] == nil }.compactMap { $0["params"]?["value"]?["done"]?.int64Value } == [1_000, 1_500, 2_000])
        // The whole chain is one thread, read a page of 500 at a time.
        var threaded = 0
        var cursor: JSONValue = .null
        for id in 2...10 {
            let after = cursor == .null ? "" : #","cursor":\#(cursor.jsonText())"#
            try host.send(BinaryHarness.request(id, "mail.thread", #"{"threadId":"c0","limit":500\#(after)}"#))
            let page = try host.response(to: .integer(Int64(id)), within: 60_000).response["result"]
            threaded += page?["messages"]?.arrayValue?.count ?? 0
            cursor = page?["nextCursor"] ?? .null
            if cursor == .null { break }
        }
        #expect(threaded == count)
        host.closeInput()
        #expect(try host.waitForExit(within: 30_000) == .exited(0))
    }
}
