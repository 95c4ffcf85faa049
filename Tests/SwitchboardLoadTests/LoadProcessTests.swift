@testable import switchboard_load
import Testing

/// The child process the driver runs: spawned over pipes, pumped without blocking, reaped with its usage.
@Suite("switchboard-load: the server process")
struct LoadProcessTests {
    @Test("cat echoes a frame back through the pumped pipes, exits 0 on EOF, and is reaped with its usage")
    func echoThroughCat() throws {
        let process = try ServerProcess(command: ["cat"], stderrPath: nil)
        let body = #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#
        process.enqueue(Framing.ndjson.frame(Array(body.utf8)))
        process.writeQueued()
        var incoming: Incoming?
        while incoming == nil, !process.reachedEnd {
            ServerProcess.pump([process], milliseconds: -1)
            incoming = try process.nextMessage(.ndjson)
        }
        guard case .response(let id, let hasResult)? = incoming?.kind else {
            Issue.record("no answer came back")
            return
        }
        #expect(id == 1 && hasResult)
        process.samplePeakRSS()
        let exit = process.finish(timeout: 30)
        #expect(exit.succeeded)
        #expect((process.peakRSSKilobytes ?? 0) > 0)
        #expect(process.bytesRead == body.utf8.count + 1)
    }

    @Test("a command that does not exist is an error, not a trap")
    func missingCommand() {
        #expect(throws: LoadError.self) { try ServerProcess(command: ["/nonexistent/switchboard-load-test"], stderrPath: nil) }
    }
}
