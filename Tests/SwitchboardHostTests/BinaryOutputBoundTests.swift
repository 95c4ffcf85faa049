import Jansson
import Testing

/// The output bound against the built binary, over real pipes.
@Suite("Bounded output, against the binary")
struct BinaryOutputBoundTests {
    typealias H = BinaryHarness

    @Test("--max-output-bytes is advertised by initialize and validated")
    func advertised() throws {
        let host = try SpawnedHost(arguments: ["--max-output-bytes", "5000"])
        try host.send(H.request(1, "initialize"))
        let reply = try host.nextMessage()
        #expect(reply["result"]?["capabilities"]?["limits"]?["maxOutputBytes"] == 5000)
        #expect(reply["result"]?["capabilities"]?["notificationsDropped"] == "$/notificationsDropped")
        let refused = try H.run(["serve", "--max-output-bytes", "0"])
        #expect(refused.termination != .exited(0))
        #expect(refused.stderr.contains("--max-output-bytes"))
    }

    @Test("with a bound far below one answer, pipelined task answers of 128 KB each all arrive, whole and once",
          arguments: [H.Wire.ndjson, .lsp])
    func answersAllArrive(wire: H.Wire) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory", "--max-output-bytes", "1024", "--max-in-flight", "2"], wire: wire)
        let total = 24
        try host.send((1...total).map { H.request($0, "feed.list", #"{"limit":500}"#) })
        var seen: [Int64] = []
        for _ in 1...total {
            let reply = try host.nextMessage(within: 30_000)
            #expect(reply["result"]?["items"]?.arrayValue?.count == 500)
            if let id = reply["id"]?.int64Value { seen.append(id) }
        }
        #expect(seen.sorted() == (1...Int64(total)).map { $0 })
        host.closeInput()
        #expect(try host.readToEndOfOutput(within: 30_000).isEmpty)
        #expect(try host.waitForExit() == .exited(0))
    }
}
