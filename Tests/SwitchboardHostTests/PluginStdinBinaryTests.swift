import Jansson
import Testing

/// A plugin's stdin against the built binary: nothing written to it ever waits for the plugin to read
/// (a wait would stop the host's reader of that plugin, or its input thread), a plugin that stops
/// reading is stopped once its backlog passes the bound (`reason: "protocol"`), and what the host
/// sends it keeps its order (a cancellation follows its request). Each test waits on answers.
@Suite("Plugin stdin: never waited on, kept in order (binary)", .serialized, .offCooperativePool)
struct PluginStdinBinaryTests {
    typealias H = BinaryHarness

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try PluginBinaryTests.call(host, id, method, params)
    }

    /// A host with the `patient` fixture: the probe with a time-out far beyond the tests', so a call to
    /// it ends by what the plugin does, never by the clock; the output bound at 64 KiB.
    static func patientHost() throws -> SpawnedHost {
        let plugins = String(PluginBinaryTests.fixtures.dropLast("/plugins".count)) + "/patient"
        let folder = try BinaryHarness.temporaryFolder("patient")
        return try SpawnedHost(arguments: ["serve", "--plugins", plugins, "--backend", "memory", "--plugin-grace", "500",
                                           "--max-output-bytes", "65536"], environment: ["XDG_CONFIG_HOME": folder])
    }

    /// Whether `answer` is the error of a plugin stopped for not reading its stdin.
    static func isStoppedForNotReading(_ answer: JSONValue?) -> Bool {
        let error = answer?["error"]
        return error?["code"] == -32070 && error?["data"]?["plugin"] == "patient" && error?["data"]?["reason"] == "protocol"
            && error?["data"]?["detail"]?.stringValue?.contains("stopped reading its stdin") == true
    }

    @Test("A plugin that floods the host with requests and never reads the answers is stopped (reason protocol): the host keeps reading it and serving")
    func floodingPluginThatNeverReads() throws {
        let host = try Self.patientHost()
        #expect(try Self.call(host, 1, "patient.echo", #"{"text":"up"}"#)["result"] == ["text": "up"])
        // 20000 pings: their answers are about ten times what the pipe and the bound hold.
        try host.send(H.request(2, "patient.deaf", #"{"pings":20000}"#))
        let answer = try host.response(to: 2).response
        #expect(Self.isStoppedForNotReading(answer), "\(answer)")
        #expect(try Self.call(host, 3, "host.ping")["result"] == "pong")
        #expect(try Self.call(host, 4, "patient.echo", #"{"text":"again"}"#)["result"] == ["text": "again"], "restarted")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("Calls to a plugin that stopped reading never wait for it: past the bound it is stopped, the calls sent to it fail with reason protocol, the host answers meanwhile")
    func callsToAPluginThatStoppedReading() throws {
        let host = try Self.patientHost()
        #expect(try Self.call(host, 1, "patient.echo", #"{"text":"up"}"#)["result"] == ["text": "up"])
        try host.send(H.request(2, "patient.deaf", #"{"pings":0}"#))
        // 60 calls of 4 KB: more than the pipe, the plugin's own buffer and the 64 KB bound take.
        let text = String(repeating: "x", count: 4096)
        let calls = Array(3..<63)
        try host.send(calls.map { H.request($0, "patient.echo", #"{"text":"\#(text)"}"#) } + [H.request(900, "host.ping")])
        let answers = try host.answers(to: [2] + calls + [900])
        #expect(answers[900]?["result"] == "pong")
        #expect(Self.isStoppedForNotReading(answers[2]), "\(answers[2] ?? .null)")
        // The calls written before it was stopped fail with it; those the host read after it ended
        // started it again and were answered.
        let failed = calls.filter { Self.isStoppedForNotReading(answers[$0]) }
        #expect(!failed.isEmpty)
        let unexpected = calls.filter { !failed.contains($0) && answers[$0]?["result"]?["text"] != .string(text) }
        #expect(unexpected.isEmpty, "neither stopped for not reading nor answered: \(unexpected.map { answers[$0]?["error"] ?? .null })")
        #expect(try Self.call(host, 63, "patient.echo", #"{"text":"again"}"#)["result"] == ["text": "again"], "restarted")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("A call and its $/cancelRequest in one read: -32800 at once, and the plugin gets notifications/cancelled after the call, never before it")
    func cancellationFollowsItsRequest() throws {
        let host = try PluginBinaryTests.host()
        #expect(try Self.call(host, 1, "probe.echo", #"{"text":"up"}"#)["result"] == ["text": "up"])
        try host.send([H.request(2, "probe.hang"), H.notification("$/cancelRequest", #"{"id":2}"#)])
        #expect(try host.response(to: 2).response["error"]?["code"] == -32800)
        // The probe counts a cancellation of a request it has not received yet as early.
        #expect(try Self.call(host, 3, "probe.cancellations")["result"] == ["early": 0, "after": 1])
    }
}
