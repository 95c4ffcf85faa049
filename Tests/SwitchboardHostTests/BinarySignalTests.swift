#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

// Real signals to the built binary (issue point 8) and cancellation/progress over the wire (point 7).

@Suite("The binary under SIGTERM and SIGINT")
struct BinarySignalTests {
    typealias H = BinaryHarness

    /// Starts a host.sleep with a progress token and returns once it is surely running (first `$/progress`).
    static func startSleep(_ host: SpawnedHost, id: Int, ms: Int, steps: Int) throws {
        try host.send(H.request(id, "host.sleep", #"{"ms":\#(ms),"steps":\#(steps),"_meta":{"progressToken":"t\#(id)"}}"#))
        let first = try host.nextMessage()
        #expect(first["method"] == "$/progress", "the sleep reports progress before the signal: \(first)")
        #expect(first["params"]?["token"] == .string("t\(id)"))
    }

    @Test("a signal while host.sleep runs: the answer still arrives, then the host exits 0",
          arguments: [SIGTERM, SIGINT], [BinaryHarness.Wire.ndjson, .lsp])
    func signalDrains(signal: Int32, wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        try Self.startSleep(host, id: 1, ms: 300, steps: 10)
        host.signal(signal)
        // stdin stays open: the signal alone ends the host, after the answer.
        let (reply, _) = try host.response(to: 1, within: 5_000)
        H.expectWellFormedResponse(reply)
        #expect(reply["result"] == ["slept": 300, "steps": 10])
        try host.readToEndOfOutput(within: 5_000)
        #expect(try host.waitForExit(within: 5_000) == .exited(0))
    }

    @Test("SIGTERM with a long request and --drain-timeout 200: it is answered -32800 and the host exits promptly")
    func drainTimeoutCancels() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200"])
        try Self.startSleep(host, id: 1, ms: 60_000, steps: 6_000)
        let start = H.nowMilliseconds()
        host.signal(SIGTERM)
        let (reply, _) = try host.response(to: 1, within: 5_000)
        H.expectWellFormedResponse(reply)
        #expect(H.errorCode(reply) == -32800)
        #expect(try host.waitForExit(within: 5_000) == .exited(0))
        let elapsed = H.nowMilliseconds() - start
        #expect(elapsed >= 150, "the drain timeout was honoured (\(elapsed) ms)")
        #expect(elapsed < 2_000, "exited promptly after the drain timeout (\(elapsed) ms)")
    }

    @Test("SIGTERM on an idle host with stdin open ends it with status 0 at once")
    func idleSignal() throws {
        let host = try SpawnedHost()
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage()["result"] == "pong")
        host.signal(SIGTERM)
        #expect(try host.waitForExit(within: 2_000) == .exited(0))
        #expect(try host.readToEndOfOutput(within: 1_000).isEmpty)
    }
}

@Suite("Cancellation and progress over the wire")
struct BinaryCancellationTests {
    typealias H = BinaryHarness

    enum CancelStyle: String, CaseIterable, CustomTestStringConvertible {
        case lsp, mcp
        var testDescription: String { self == .lsp ? "$/cancelRequest" : "notifications/cancelled" }
        func message(for id: String) -> String {
            switch self {
            case .lsp: H.notification("$/cancelRequest", #"{"id":\#(id)}"#)
            case .mcp: H.notification("notifications/cancelled", #"{"requestId":\#(id)}"#)
            }
        }
    }

    @Test("cancelling a running host.sleep answers -32800 and no progress for it follows",
          arguments: CancelStyle.allCases, [BinaryHarness.Wire.ndjson, .lsp])
    func cancelRunningSleep(style: CancelStyle, wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        try host.send(#"{"jsonrpc":"2.0","id":"s1","method":"host.sleep","params":{"ms":5000,"steps":500,"_meta":{"progressToken":"tok"}}}"#)
        let first = try host.nextMessage()
        #expect(first == ["jsonrpc": "2.0", "method": "$/progress", "params": ["token": "tok", "value": ["step": 1, "of": 500]]])

        let start = H.nowMilliseconds()
        try host.send(style.message(for: #""s1""#))
        let (reply, before) = try host.response(to: "s1", within: 3_000)
        #expect(H.nowMilliseconds() - start < 1_000, "cancellation is prompt")
        H.expectWellFormedResponse(reply)
        #expect(H.errorCode(reply) == -32800)
        #expect(before.allSatisfy { $0["method"] == "$/progress" && $0["params"]?["token"] == "tok" })

        // Time passing is the point: the handler really stopped, so nothing more comes for "tok".
        let later = try host.messages(during: 300)
        #expect(later.isEmpty, "after -32800 nothing else arrives: \(later)")
        try host.send(H.request(2, "host.status"))
        let status = try host.nextMessage()
        #expect(status["result"]?["inFlight"] == 0, "the cancelled request is no longer in flight: \(status)")
    }

    @Test("progress reports arrive in order while the request runs, before its answer")
    func progressInOrder() throws {
        let host = try SpawnedHost(wire: .lsp)
        try host.send(H.request(7, "host.sleep", #"{"ms":50,"steps":5,"_meta":{"progressToken":42}}"#))
        let (reply, before) = try host.response(to: 7)
        #expect(reply["result"] == ["slept": 50, "steps": 5])
        let steps = before.compactMap { $0["params"]?["value"]?["step"]?.int64Value }
        #expect(steps == [1, 2, 3, 4, 5])
        #expect(before.allSatisfy { $0["params"]?["token"] == 42 })
    }

    @Test("cancelling an unknown or finished id is ignored and the stream goes on")
    func cancelUnknown() throws {
        let host = try SpawnedHost()
        try host.send([H.notification("$/cancelRequest", #"{"id":999}"#), H.request(1, "host.ping")])
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 1, "result": "pong"])
        #expect(try host.messages(during: 100).isEmpty)
    }
}
