import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A signal that comes while the host is already finishing its work.
@Suite("Draining, against the binary")
struct BinaryDrainTests {
    @Test("SIGTERM after end of input still ends the wait for a long request: -32800, then a prompt exit 0")
    func signalDuringEndOfInputDrain() throws {
        let host = try SpawnedHost(arguments: ["--drain-timeout", "200"])
        try host.send(BinaryHarness.request(1, "host.sleep", #"{"ms":60000}"#))
        host.closeInput()
        // End of input waits for the request, however long; nothing arrives meanwhile.
        #expect(try host.messages(during: 300).isEmpty)
        #expect(!host.hasExited)
        let start = BinaryHarness.nowMilliseconds()
        host.signal(SIGTERM)
        let reply = try host.response(to: 1, within: 3_000).response
        #expect(BinaryHarness.errorCode(reply) == -32800)
        let termination = try host.waitForExit(within: 3_000)
        #expect("\(termination)".contains("0"), "\(termination)")
        #expect(BinaryHarness.nowMilliseconds() - start < 2_500)
    }
}
