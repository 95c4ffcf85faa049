import Jansson
import Testing

/// A tool schema's `pattern` that backtracks exponentially (`(a+)+$` on "aaa…a!") is checked in the
/// request's task with a bound: the host answers others meanwhile, the call is `-32602` naming the
/// field and saying the pattern took too long, and a cancel stops the check (`-32800`).
@Suite("Plugin schema patterns (binary)", .offCooperativePool)
struct PluginPatternBinaryTests {
    typealias H = BinaryHarness

    /// Thirty `a`s and a `!`: unbounded, `(a+)+$` backtracks for minutes (2^30 ways to split the run).
    static let slowText = String(repeating: "a", count: 30) + "!"

    /// A host whose `probe.match` answers, checking request 2 (the slow text) after request 3, a ping,
    /// was answered: the check does not hold the input.
    static func hostCheckingASlowPattern() throws -> SpawnedHost {
        let host = try PluginBinaryTests.host()
        #expect(try PluginBinaryTests.call(host, 1, "probe.match", #"{"text":"aaa"}"#)["result"] == ["text": "aaa"])
        try host.send([H.request(2, "probe.match", #"{"text":"\#(slowText)"}"#), H.request(3, "host.ping")])
        let (pong, before) = try host.response(to: 3)
        #expect(pong["result"] == "pong")
        #expect(!before.contains { $0["id"] == 2 }, "the call was answered before the ping: the check held the input")
        return host
    }

    @Test("A pattern that runs out is -32602 naming the field; a ping sent after it is answered first")
    func runawayPatternIsRefusedWhileTheHostServes() throws {
        let host = try Self.hostCheckingASlowPattern()
        let refused = try host.response(to: 2).response
        #expect(H.errorCode(refused) == -32602, "\(refused)")
        #expect(refused["error"]?["data"]?["field"] == "text", "\(refused)")
        #expect(refused["error"]?["data"]?["got"]?.stringValue?.contains("pattern (a+)+$ took too long") == true, "\(refused)")
        // A value that does not match is refused as before, and the tool still answers.
        let mismatch = try PluginBinaryTests.call(host, 4, "probe.match", #"{"text":"b"}"#)
        #expect(H.errorCode(mismatch) == -32602)
        #expect(mismatch["error"]?["data"]?["got"]?.stringValue?.contains("does not match") == true, "\(mismatch)")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("$/cancelRequest stops a pattern check under way: -32800")
    func cancelStopsThePatternCheck() throws {
        let host = try Self.hostCheckingASlowPattern()
        try host.send(H.notification("$/cancelRequest", #"{"id":2}"#))
        let cancelled = try host.response(to: 2).response
        #expect(H.errorCode(cancelled) == -32800, "\(cancelled)")
        #expect(try PluginBinaryTests.call(host, 4, "probe.match", #"{"text":"a"}"#)["result"] == ["text": "a"])
    }
}
