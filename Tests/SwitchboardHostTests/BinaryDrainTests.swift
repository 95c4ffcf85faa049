import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End of input and signals give in-flight work the drain time (`--drain-timeout`), then the host
/// cancels what is left and exits, however busy a request is.
@Suite("Draining, against the binary", .offCooperativePool)
struct BinaryDrainTests {
    @Test("End of input waits for a long request, then cancels it after the drain time: -32800, then exit 0")
    func endOfInputDrainEndsWithTheDrainTime() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "3000"])
        // Ten minutes in 60 ms steps, reporting each: its progress shows it is still running.
        try host.send(BinaryHarness.request(1, "host.sleep", #"{"ms":600000,"steps":10000,"_meta":{"progressToken":"p"}}"#))
        let first = try host.nextMessage()
        #expect(first["method"] == "$/progress", "the sleep runs: \(first)")
        host.closeInput()
        // End of input waits for the request: its progress goes on after the close.
        let closedAt = first["params"]?["value"]?["step"]?.int64Value ?? 0
        var step = closedAt
        while step < closedAt + 3 {
            let message = try host.nextMessage()
            #expect(message["method"] == "$/progress", "only progress while the host waits at end of input: \(message)")
            step = message["params"]?["value"]?["step"]?.int64Value ?? step
        }
        let (reply, _) = try host.response(to: 1)
        #expect(BinaryHarness.errorCode(reply) == -32800)
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("End of input ends the process after the drain time even while a request computes and ignores its cancel")
    func endOfInputEndsABusyHost() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200"])
        // Ten minutes of CPU that never looks at its cancellation.
        try host.send(BinaryHarness.request(1, "host.sleep", #"{"ms":600000,"steps":10000,"busy":true,"_meta":{"progressToken":"p"}}"#))
        let first = try host.nextMessage()
        #expect(first["method"] == "$/progress", "the computation runs: \(first)")
        #expect(try PluginBinaryTests.call(host, 2, "host.ping")["result"] == "pong", "the host answers while a request computes")
        host.closeInput()
        let (reply, _) = try host.response(to: 1)
        #expect(BinaryHarness.errorCode(reply) == -32800, "\(reply)")
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("SIGTERM after end of input drains the same way: -32800, then exit 0")
    func signalDuringEndOfInputDrain() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200"])
        try host.send(BinaryHarness.request(1, "host.sleep", #"{"ms":600000,"steps":10000,"_meta":{"progressToken":"p"}}"#))
        let first = try host.nextMessage()
        #expect(first["method"] == "$/progress", "the sleep runs: \(first)")
        host.closeInput()
        host.signal(SIGTERM)
        let (reply, _) = try host.response(to: 1)
        #expect(BinaryHarness.errorCode(reply) == -32800)
        #expect(try host.waitForExit() == .exited(0))
    }
}
