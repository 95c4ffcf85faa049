#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A plugin that dies, freezes or floods its stdout is contained: the call gets the documented
/// `-32070` error with its reason, and the host keeps serving the client, other methods and, after a
/// restart, the plugin itself. Each test waits on answers (events), never on time.
@Suite("Plugin faults (binary)", .serialized, .offCooperativePool)
struct PluginFaultBinaryTests {
    typealias H = BinaryHarness

    /// The `quick` fixture: the probe with a short timeoutMs.
    static let quickPlugins: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/faulty-plugins"
    }()

    static func pid(of plugin: String, _ host: SpawnedHost, id: Int) throws -> pid_t {
        let items = try PluginBinaryTests.call(host, id, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        return pid_t(try #require(items.first { $0["name"] == .string(plugin) }?["pid"]?.int64Value))
    }

    /// Whether `quick.echo` answers within ten tries: on a loaded machine a start (or a wake-up) may
    /// outlast the short timeoutMs; each failed try is an answer, not a wait.
    static func echoes(_ host: SpawnedHost, firstID: Int) throws -> Bool {
        for id in firstID..<firstID + 10 {
            if try PluginBinaryTests.call(host, id, "quick.echo", #"{"text":"up"}"#)["result"] == ["text": "up"] { return true }
        }
        return false
    }

    /// The client's other requests, a ping and a domain read, are answered before the pending call.
    static func expectServing(_ host: SpawnedHost, whilePending pending: Int) throws {
        try host.send([H.request(900, "host.ping"), H.request(901, "feed.list", #"{"limit":1}"#)])
        let (pong, before) = try host.response(to: 900)
        #expect(pong["result"] == "pong")
        #expect(!before.contains { $0["id"] == .integer(Int64(pending)) }, "the call was answered before the ping")
        // The two answers come in either order: the read may have been answered first, and read past by the wait.
        let list = try before.first { $0["id"] == 901 } ?? host.response(to: 901).response
        #expect(list["result"]?["items"]?.arrayValue?.count == 1)
    }

    @Test("A plugin killed with SIGKILL mid-call fails the call as crashed by signal 9; the next call restarts it")
    func pluginKilledMidCall() throws {
        let host = try PluginBinaryTests.host()
        #expect(try PluginBinaryTests.call(host, 1, "probe.echo", #"{"text":"up"}"#)["result"] == ["text": "up"])
        let pid = try Self.pid(of: "probe", host, id: 2)
        // Killed once it has the call (its progress says so): killed before, the call could reach a
        // restarted plugin and time out there instead.
        try host.send(H.request(3, "probe.hang", #"{"_meta":{"progressToken":"hang"}}"#))
        while true {
            let message = try host.nextMessage()
            if message["method"] == "$/progress", message["params"]?["token"] == "hang" { break }
        }
        kill(pid, SIGKILL)
        let failed = try host.response(to: 3).response
        #expect(failed["error"]?["code"] == -32070)
        #expect(failed["error"]?["data"]?["reason"] == "crashed")
        #expect(failed["error"]?["data"]?["signal"] == .integer(Int64(SIGKILL)), "\(failed)")
        #expect(try PluginBinaryTests.call(host, 4, "probe.echo", #"{"text":"again"}"#)["result"] == ["text": "again"])
        #expect(try Self.pid(of: "probe", host, id: 5) != pid)
        // The fault suite's plugins run under the default sandbox, the restarted one too.
        let items = try PluginBinaryTests.call(host, 6, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(items.first { $0["name"] == "probe" }?["sandbox"]?["enforced"] == true, "\(items)")
    }

    @Test("A SIGSTOPped plugin: the call fails with reason timeout after timeoutMs, the host serves others meanwhile")
    func stoppedPluginTimesOut() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", Self.quickPlugins, "--backend", "memory", "--plugin-grace", "500"])
        try #require(try Self.echoes(host, firstID: 100), "the plugin never answered")
        let pid = try Self.pid(of: "quick", host, id: 2)
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        try host.send(H.request(3, "quick.echo", #"{"text":"frozen"}"#))
        try Self.expectServing(host, whilePending: 3)
        let answer = try host.response(to: 3).response
        #expect(answer["error"]?["code"] == -32070)
        #expect(answer["error"]?["data"]?["reason"] == "timeout")
        #expect(answer["error"]?["data"]?["timeoutMs"] == 1500)
        kill(pid, SIGCONT)
        // Woken, it answers the abandoned call (dropped by the host) and then the next one.
        #expect(try Self.echoes(host, firstID: 200))
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("Endless output without a newline is reason protocol, not a wait for timeoutMs; the plugin restarts on the next call")
    func endlessLineIsAProtocolBreach() throws {
        let host = try PluginBinaryTests.host(["--max-message-bytes", "65536"])
        try host.send(H.request(1, "probe.flood"))
        let answer = try host.response(to: 1).response
        #expect(answer["error"]?["code"] == -32070)
        #expect(answer["error"]?["data"]?["reason"] == "protocol", "\(answer)")
        #expect(try PluginBinaryTests.call(host, 2, "probe.echo", #"{"text":"ok"}"#)["result"] == ["text": "ok"])
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("An answer over --max-message-bytes is refused like an oversized request: reason protocol, the plugin restarts")
    func oversizedAnswerIsAProtocolBreach() throws {
        let host = try PluginBinaryTests.host(["--max-message-bytes", "65536"])
        let answer = try PluginBinaryTests.call(host, 1, "probe.bloat")
        #expect(answer["error"]?["code"] == -32070)
        #expect(answer["error"]?["data"]?["reason"] == "protocol", "\(answer)")
        #expect(try PluginBinaryTests.call(host, 2, "probe.echo", #"{"text":"ok"}"#)["result"] == ["text": "ok"])
    }

    @Test("A stream of notifications: the call still gets its answer, progress reaches the client, the host keeps serving")
    func notificationStormIsContained() throws {
        let host = try PluginBinaryTests.host()
        let count = 2_000
        try host.send(#"{"jsonrpc":"2.0","id":1,"method":"probe.storm","params":{"count":\#(count),"_meta":{"progressToken":"storm"}}}"#)
        try host.send([H.request(900, "host.ping"), H.request(901, "feed.list", #"{"limit":1}"#)])
        let answers = try host.answers(to: [1, 900, 901])
        #expect(answers[900]?["result"] == "pong")
        #expect(answers[901]?["result"]?["items"]?.arrayValue?.count == 1)
        #expect(answers[1]?["result"] == ["sent": .integer(Int64(count))])
        let progress = host.received.filter { $0["method"] == "$/progress" }
        #expect(progress.allSatisfy { $0["params"]?["token"] == "storm" })
        #expect(!progress.isEmpty && progress.count <= count)
        #expect(try PluginBinaryTests.call(host, 2, "probe.echo", #"{"text":"calm"}"#)["result"] == ["text": "calm"])
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
