import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End of input and signals give in-flight work the drain time (`--drain-timeout`), then the host
/// cancels what is left and exits, however busy a request is.
@Suite("Draining, against the binary", .offCooperativePool)
struct BinaryDrainTests {
    /// A host with `--drain-timeout drain` running request 1, ten minutes in 60 ms steps (sleeping, or
    /// computing and ignoring its cancel when `busy`), whose first progress report has come.
    static func hostRunningALongRequest(drain: Int, busy: Bool = false) throws -> (host: SpawnedHost, progress: JSONValue) {
        let host = try SpawnedHost(arguments: ["--drain-timeout", String(drain)])
        try host.send(BinaryHarness.request(1, "host.sleep", #"{"ms":600000,"steps":10000,"busy":\#(busy),"_meta":{"progressToken":"p"}}"#))
        let first = try host.nextMessage()
        #expect(first["method"] == "$/progress", "the request runs: \(first)")
        return (host, first)
    }

    @Test("End of input waits for a long request, then cancels it after the drain time: -32800, then exit 0")
    func endOfInputDrainEndsWithTheDrainTime() throws {
        let (host, first) = try Self.hostRunningALongRequest(drain: 3000)
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
        // Ten minutes of CPU that never looks at its cancellation.
        let (host, _) = try Self.hostRunningALongRequest(drain: 200, busy: true)
        #expect(try PluginBinaryTests.call(host, 2, "host.ping")["result"] == "pong", "the host answers while a request computes")
        host.closeInput()
        let (reply, _) = try host.response(to: 1)
        #expect(BinaryHarness.errorCode(reply) == -32800, "\(reply)")
        // Not "Request cancelled", which would promise that it wrote nothing: it still runs.
        #expect(reply["error"]?["message"] == "Request cancelled: it still ran when the host stopped, so what it wrote, if anything, is unknown",
                "\(reply)")
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("SIGTERM after end of input drains the same way: -32800, then exit 0")
    func signalDuringEndOfInputDrain() throws {
        let (host, _) = try Self.hostRunningALongRequest(drain: 200)
        host.closeInput()
        host.signal(SIGTERM)
        let (reply, _) = try host.response(to: 1)
        #expect(BinaryHarness.errorCode(reply) == -32800)
        #expect(try host.waitForExit() == .exited(0))
    }
}
