#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Jansson
import Testing

// Real signals to the built binary (issue point 8) and cancellation/progress over the wire (point 7).

@Suite("The binary under SIGTERM and SIGINT", .offCooperativePool)
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
        let (reply, _) = try host.response(to: 1)
        H.expectWellFormedResponse(reply)
        #expect(reply["result"] == ["slept": 300, "steps": 10])
        try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("SIGTERM with a long request and --drain-timeout 200: it is answered -32800 and the host exits long before the request would end")
    func drainTimeoutCancels() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200"])
        try Self.startSleep(host, id: 1, ms: 600_000, steps: 10_000)
        let start = H.nowMilliseconds()
        host.signal(SIGTERM)
        let (reply, before) = try host.response(to: 1)
        H.expectWellFormedResponse(reply)
        #expect(H.errorCode(reply) == -32800)
        // The request was still running when it was cancelled: its progress had not reached the end.
        let steps = before.compactMap { $0["params"]?["value"]?["step"]?.int64Value }
        #expect(steps.allSatisfy { $0 < 10_000 })
        #expect(try host.waitForExit() == .exited(0))
        // A lower bound holds on any machine (load only adds time): the host waited for the drain timeout.
        let elapsed = H.nowMilliseconds() - start
        #expect(elapsed >= 190, "the drain timeout was honoured (\(elapsed) ms)")
    }

    @Test("SIGTERM while as many requests as cores ignore their cancel: a request waiting for a slot is answered -32800 before exit")
    func waitingRequestAnsweredWhileThePoolIsBusy() throws {
        // As many busy requests as slots (host.sleep runs on the long-work threads, off the task pool).
        let cores = Self.usableCores()
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200", "--max-in-flight", String(cores)])
        try Self.startBusySleeps(ids: 1...cores, on: host)
        // No slot is free: this one waits for one. The ping behind it is answered by the input thread
        // once the waiting one is queued.
        let waiting = cores + 1
        try host.send([H.request(waiting, "host.sleep", #"{"ms":600000,"steps":10}"#), H.request(0, "host.ping")])
        #expect(try host.response(to: 0).response["result"] == "pong")
        host.signal(SIGTERM)
        let (reply, _) = try host.response(to: .integer(Int64(waiting)))
        H.expectWellFormedResponse(reply)
        #expect(H.errorCode(reply) == -32800, "\(reply)")
        let rest = try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        let answered = rest.filter { $0["id"] != nil && H.errorCode($0) == -32800 }.count
        #expect(answered == cores, "each busy request is answered -32800 at exit: \(rest.filter { $0["id"] != nil })")
    }

    /// Sends a ten-minute busy `host.sleep` for each id (they never look at their cancel) and returns once
    /// each has reported progress: each holds a thread then.
    static func startBusySleeps(ids: ClosedRange<Int>, on host: SpawnedHost) throws {
        for id in ids {
            try host.send(H.request(id, "host.sleep", #"{"ms":600000,"steps":10000,"busy":true,"_meta":{"progressToken":"t\#(id)"}}"#))
        }
        var running: Set<String> = []
        while running.count < ids.count {
            let message = try host.nextMessage()
            if message["method"] == "$/progress", let token = message["params"]?["token"]?.stringValue { running.insert(token) }
        }
    }

    /// The cores this process may run on (its affinity mask, `Cpus_allowed` in /proc/self/status),
    /// which the task pool's width follows; the online cores when that cannot be read.
    static func usableCores() -> Int {
        let online = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return online }
        let bits = line.dropFirst("Cpus_allowed:".count).reduce(0) { $0 + (Int(String($1), radix: 16)?.nonzeroBitCount ?? 0) }
        return bits > 0 ? min(bits, online) : online
    }

    @Test("SIGTERM on an idle host with stdin open ends it with status 0 at once")
    func idleSignal() throws {
        let host = try SpawnedHost()
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage()["result"] == "pong")
        host.signal(SIGTERM)
        #expect(try host.waitForExit() == .exited(0))
        #expect(try host.readToEndOfOutput().isEmpty)
    }
}

@Suite("Cancellation and progress over the wire", .offCooperativePool)
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
        // Ten minutes in 60 ms steps: only the cancellation can end it while the test runs.
        try host.send(#"{"jsonrpc":"2.0","id":"s1","method":"host.sleep","params":{"ms":600000,"steps":10000,"_meta":{"progressToken":"tok"}}}"#)
        let first = try host.nextMessage()
        #expect(first == ["jsonrpc": "2.0", "method": "$/progress", "params": ["token": "tok", "value": ["step": 1, "of": 10_000]]])

        try host.send(style.message(for: #""s1""#))
        let (reply, before) = try host.response(to: "s1")
        H.expectWellFormedResponse(reply)
        #expect(H.errorCode(reply) == -32800)
        #expect(before.allSatisfy { $0["method"] == "$/progress" && $0["params"]?["token"] == "tok" })

        // The handler really stopped: a control sleep reports five steps of its own (each an event that
        // takes the victim's step time too) and no progress for "tok" comes meanwhile; then nothing is in flight.
        try host.send(H.request(2, "host.sleep", #"{"ms":300,"steps":5,"_meta":{"progressToken":"control"}}"#))
        let (control, during) = try host.response(to: 2)
        #expect(control["result"] == ["slept": 300, "steps": 5])
        #expect(during.count == 5 && during.allSatisfy { $0["params"]?["token"] == "control" },
                "after -32800 nothing else arrives for the cancelled request: \(during)")
        try host.send(H.request(3, "host.status"))
        let status = try host.response(to: 3).response
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
        // The cancellation itself is never answered: nothing comes before a later marker's answer.
        #expect(try host.messagesBeforeMarker().isEmpty)
    }
}
