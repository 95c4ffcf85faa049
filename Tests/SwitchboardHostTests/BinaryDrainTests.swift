import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A signal that comes while the host is already finishing its work.
@Suite("Draining, against the binary", .offCooperativePool)
struct BinaryDrainTests {
    @Test("SIGTERM after end of input still ends the wait for a long request: -32800, then exit 0")
    func signalDuringEndOfInputDrain() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200"])
        // Ten minutes in 60 ms steps, reporting each: its progress shows it is still running.
        try host.send(BinaryHarness.request(1, "host.sleep", #"{"ms":600000,"steps":10000,"_meta":{"progressToken":"p"}}"#))
        let first = try host.nextMessage()
        #expect(first["method"] == "$/progress", "the sleep runs: \(first)")
        host.closeInput()
        // End of input waits for the request, however long: its progress goes on (ten more steps after
        // the close), and nothing else arrives meanwhile.
        let closedAt = first["params"]?["value"]?["step"]?.int64Value ?? 0
        var step = closedAt
        while step < closedAt + 10 {
            let message = try host.nextMessage()
            #expect(message["method"] == "$/progress", "only progress while the host waits at end of input: \(message)")
            step = message["params"]?["value"]?["step"]?.int64Value ?? step
        }
        #expect(!host.hasExited)
        host.signal(SIGTERM)
        let (reply, _) = try host.response(to: 1)
        #expect(BinaryHarness.errorCode(reply) == -32800)
        #expect(try host.waitForExit() == .exited(0))
    }
}
