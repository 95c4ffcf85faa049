import Jansson
import JSONRPC
import Testing

/// When a cancellation's answer goes out, relative to the work it cancels.
@Suite("Cancellation timing")
struct CancellationTimingTests {
    func request(_ method: String, params: JSONValue, id: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]
    }

    @Test("a request queued behind the in-flight bound is answered -32800 as soon as it is cancelled, while the bound is still full")
    func queuedCancelAnswersAtOnce() async throws {
        let host = try Harness(limits: ConnectionLimits(maxInFlight: 1))
        try await host.send(json: request("test.block", params: ["key": "running"], id: 1))
        try await host.probe.waitFor("start:running")
        try await host.send(json: request("test.block", params: ["key": "queued"], id: 2))
        try await host.notify("$/cancelRequest", params: ["id": 2])
        // Answered while request 1 still holds the only slot.
        expectError(try await host.reply(to: 2), id: 2, code: -32800)
        #expect(host.probe.count(of: "end:running") == 0)
        host.probe.open("running")
        expectResult(try await host.reply(to: 1), id: 1, "running")
        try await host.waitUntilIdle()
        #expect(!host.probe.events.elements.contains("start:queued"))
    }

    @Test("a handler that finishes its work despite a cancel has its result delivered, not -32800: the work happened")
    func finishedWorkIsDelivered() async throws {
        let host = try Harness()
        try await host.send(json: request("test.stubborn", params: ["key": "write"], id: 7))
        try await host.probe.waitFor("start:write")
        try await host.notify("$/cancelRequest", params: ["id": 7])
        host.probe.open("write")
        expectResult(try await host.reply(to: 7), id: 7, "write")
    }

    @Test("a cancelled request whose error says what it wrote (a commit of unknown outcome, a part stored) is answered that error, not -32800",
          arguments: [true, false])
    func errorThatReportsWritesIsKept(reportsWrites: Bool) async throws {
        let reached = Latch(), release = Latch()
        let host = try Harness {
            $0.register(TestUnsure.self) { _, _ in
                reached.open()
                try? await release.opened("the test to release test.unsure")
                throw ResponseError(code: ErrorCode(rawValue: -32050), message: "Storage unavailable: the COMMIT had been sent, so the write may have been committed",
                                    reportsWrites: reportsWrites)
            }
        }
        try await host.send(json: request("test.unsure", params: [:], id: 3))
        try await reached.opened("test.unsure to start")
        try await host.notify("$/cancelRequest", params: ["id": 3])
        release.open()
        // Without the mark, a cancelled request's failure is the cancel's.
        expectError(try await host.reply(to: 3), id: 3, code: reportsWrites ? -32050 : -32800)
    }
}

/// `test.unsure`: waits for the test, then fails as a write of unknown outcome (tests only).
enum TestUnsure: RPCMethod {
    static let name = "test.unsure"
    static let summary = "Test only: fails as a write whose commit is of unknown outcome."
    struct Params: Decodable, Sendable {}
    typealias Result = String
}
