#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// Plugins against the built binary over real pipes: the hostile `probe` fixture crashes, hangs,
/// writes garbage, prints its environment and calls back; `claims-core` takes `mail`; `broken` has a
/// manifest that is not JSON. Each test waits on answers (events), never on time.
@Suite("Plugins (binary)", .serialized, .offCooperativePool)
struct PluginBinaryTests {
    static let fixtures: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/plugins"
    }()

    static func host(_ extra: [String] = []) throws -> SpawnedHost {
        let folder = try BinaryHarness.temporaryFolder("plugins")
        return try SpawnedHost(
            arguments: ["serve", "--plugins", fixtures, "--backend", "memory", "--plugin-grace", "500"] + extra,
            environment: ["PROBE_PASSED": "passed", "SECRET_TOKEN": "must-not-leak", "XDG_CONFIG_HOME": folder]
        )
    }

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try host.send(BinaryHarness.request(id, method, params))
        return try host.response(to: .integer(Int64(id))).response
    }

    @Test("plugins.list shows the running plugin and the refused ones with their reasons")
    func listsPlugins() throws {
        let host = try Self.host()
        let items = try #require(try Self.call(host, 1, "plugins.list")["result"]?["items"]?.arrayValue)
        let byName = Dictionary(uniqueKeysWithValues: items.compactMap { item in item["name"]?.stringValue.map { ($0, item) } })
        #expect(byName["probe"]?["state"] == "running")
        #expect(byName["probe"]?["methods"]?.arrayValue?.contains("probe.echo") == true)
        #expect(byName["impostor"]?["state"] == "invalid")
        #expect(byName["impostor"]?["lastError"]?.stringValue?.contains("belongs to the host") == true)
        #expect(byName["broken"]?["state"] == "invalid")
        #expect(try Self.call(host, 2, "mail.folders")["result"] != nil, "the host serves everything else")
    }

    @Test("Without plugins, plugins.list answers no items and an unknown namespace stays -32601")
    func noPlugins() throws {
        let folder = try BinaryHarness.temporaryFolder("noplugins")
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory"], environment: ["XDG_CONFIG_HOME": folder])
        #expect(try Self.call(host, 1, "plugins.list")["result"] == ["items": []])
        #expect(try Self.call(host, 2, "probe.echo")["error"]?["code"] == -32601)
    }

    @Test("A plugin that never answers initialize: listings still answer, and calls fail with the time-out")
    func survivesAMutePlugin() throws {
        let folder = String(Self.fixtures.dropLast("/plugins".count)) + "/silent"
        let host = try SpawnedHost(arguments: ["serve", "--plugins", folder, "--backend", "memory"])
        let item = try Self.call(host, 1, "plugins.list")["result"]?["items"]?.arrayValue?.first
        #expect(item?["state"] != "running")
        #expect(item?["lastError"]?.stringValue?.contains("no answer within 1000 ms") == true)
        #expect(try Self.call(host, 2, "mute.anything")["error"]?["data"]?["plugin"] == "mute")
        #expect(try Self.call(host, 3, "host.ping")["result"] == "pong")
    }

    @Test("A tool is a method: params checked against its inputSchema, the structured result answered")
    func callsATool() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "probe.echo", #"{"text":"hi"}"#)["result"] == ["text": "hi"])
        let refused = try Self.call(host, 2, "probe.echo", #"{"text":5}"#)
        #expect(refused["error"]?["code"] == -32602)
        #expect(refused["error"]?["data"]?["field"] == "text")
        #expect(try Self.call(host, 3, "probe.nothing")["error"]?["code"] == -32601)
        let failed = try Self.call(host, 4, "probe.fail")
        #expect(failed["error"]?["code"] == -32071)
        #expect(failed["error"]?["data"]?["reason"] == "toolError")
        #expect(failed["error"]?["data"]?["plugin"] == "probe")
    }

    /// Reads until both the answer to `id` and a `method` notification came; the notification's params.
    static func notification(_ method: String, from host: SpawnedHost, answering id: Int) throws -> JSONValue? {
        var answered = false
        var params: JSONValue?
        while !answered || params == nil {
            let message = try host.nextMessage()
            if message["method"] == nil, message["id"] == .integer(Int64(id)) { answered = true }
            if params == nil, message["method"]?.stringValue == method { params = message["params"] }
        }
        return params
    }

    @Test("resources.subscribe: a plugin's resource is subscribed at the plugin and its updates reach only that subscription; a core resource follows its domain")
    func subscribesToResources() throws {
        let host = try Self.host()
        let subscribed = try Self.call(host, 1, "resources.subscribe", #"{"uri":"probe://counter"}"#)
        let id = try #require(subscribed["result"]?["subscriptionId"]?.stringValue)
        try host.send(BinaryHarness.request(2, "probe.touch"))
        let updated = try Self.notification("resources.updated", from: host, answering: 2)
        #expect(updated?["subscriptionId"] == .string(id))
        #expect(updated?["uri"] == "probe://counter")
        let read = try Self.call(host, 3, "resources.read", #"{"uri":"probe://counter"}"#)
        #expect(read["result"]?["contents"]?.arrayValue?.first?["text"] == #"{"touches": 1}"#)

        let inbox = try #require(try Self.call(host, 4, "resources.subscribe", #"{"uri":"mail://inbox"}"#)["result"]?["subscriptionId"])
        try host.send(BinaryHarness.request(5, "mail.send", #"{"to":"ann@example.com","subject":"s","text":"t"}"#))
        let inboxUpdate = try Self.notification("resources.updated", from: host, answering: 5)
        #expect(inboxUpdate?["uri"] == "mail://inbox")
        #expect(inboxUpdate?["subscriptionId"] == inbox)
        let unknown = try Self.call(host, 6, "resources.subscribe", #"{"uri":"file:///etc/passwd"}"#)
        #expect(unknown["error"]?["code"] == -32602)
        #expect(unknown["error"]?["data"]?["field"] == "uri")
    }

    @Test("Plugin methods appear in rpc.discover, host.methods and initialize's namespaces")
    func discoversPluginMethods() throws {
        let host = try Self.host()
        let namespaces = try Self.call(host, 1, "initialize")["result"]?["capabilities"]?["namespaces"]?.arrayValue ?? []
        #expect(namespaces.contains("probe"))
        let methods = try Self.call(host, 2, "host.methods")["result"]?.arrayValue ?? []
        #expect(methods.contains { $0["name"] == "probe.echo" })
        let discovered = try Self.call(host, 3, "rpc.discover")["result"]?["methods"]?.arrayValue ?? []
        let echo = try #require(discovered.first { $0["name"] == "probe.echo" })
        #expect(echo["params"]?.arrayValue?.first?["name"] == "text")
    }

    @Test("A plugin that crashes mid-call fails the call with its exit status and stderr, and restarts on the next call")
    func survivesACrash() throws {
        let host = try Self.host()
        let crashed = try Self.call(host, 1, "probe.crash", #"{"message":"probe: out of luck"}"#)
        let data = crashed["error"]?["data"]
        #expect(crashed["error"]?["code"] == -32070)
        #expect(data?["reason"] == "crashed")
        #expect(data?["exitStatus"] == 3)
        #expect(data?["stderrTail"]?.arrayValue?.contains("probe: out of luck") == true)
        #expect(try Self.call(host, 2, "probe.echo", #"{"text":"again"}"#)["result"] == ["text": "again"])
        let items = try Self.call(host, 3, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(items.first { $0["name"] == "probe" }?["restarts"] == 1)
        #expect(host.stderrText.contains("probe: probe: out of luck"), "plugin stderr is relayed with its name")
    }

    @Test("Three crashes within a minute leave the plugin failed until plugins.restart")
    func failsAfterThreeCrashes() throws {
        let host = try Self.host()
        for id in 1...3 { #expect(try Self.call(host, id, "probe.crash")["error"]?["data"]?["reason"] == "crashed") }
        let failed = try Self.call(host, 4, "probe.echo", #"{"text":"x"}"#)
        #expect(failed["error"]?["data"]?["reason"] == "failed")
        #expect(try Self.call(host, 5, "plugins.restart", #"{"name":"probe"}"#)["result"]?["state"] == "running")
        #expect(try Self.call(host, 6, "probe.echo", #"{"text":"x"}"#)["result"] == ["text": "x"])
    }

    @Test("A call that outlives timeoutMs fails with reason timeout; the plugin keeps serving")
    func timesOut() throws {
        let host = try Self.host()
        let answer = try Self.call(host, 1, "probe.hang")
        #expect(answer["error"]?["data"]?["reason"] == "timeout")
        #expect(try Self.call(host, 2, "probe.echo", #"{"text":"still"}"#)["result"] == ["text": "still"])
    }

    @Test("Every call that outlives timeoutMs fails with reason timeout: the run's one timer arms itself again for the next")
    func timesOutEachCall() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "probe.echo", #"{"text":"warm"}"#)["result"] == ["text": "warm"])
        // Answers in whatever order they come: the ids that timed out, and the echo in between.
        var timedOut: Set<Int64> = []
        var echoed = false
        func read(until done: () -> Bool) throws {
            while !done() {
                let message = try host.nextMessage()
                guard let id = message["id"]?.int64Value else { continue }
                if message["error"]?["data"]?["reason"] == "timeout" { timedOut.insert(id) }
                if id == 3 { echoed = message["result"] == ["text": "between"] }
            }
        }
        try host.send(BinaryHarness.request(2, "probe.hang"))
        try host.send(BinaryHarness.request(3, "probe.echo", #"{"text":"between"}"#))
        try read { echoed }
        // Due after call 2's time-out: the timer, armed for call 2, must arm itself again for this one.
        try host.send(BinaryHarness.request(4, "probe.hang"))
        try read { timedOut.isSuperset(of: [2, 4]) }
        #expect(timedOut == [2, 4])
        // Nothing left in flight, the timer idle: a new call arms it.
        #expect(try Self.call(host, 5, "probe.hang")["error"]?["data"]?["reason"] == "timeout")
        #expect(try Self.call(host, 6, "probe.echo", #"{"text":"still"}"#)["result"] == ["text": "still"])
    }

    @Test("$/cancelRequest answers -32800 at once, saying that what the plugin did before is unknown")
    func cancels() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "probe.echo", #"{"text":"warm"}"#)["result"] != nil)
        try host.send(BinaryHarness.request(2, "probe.hang"))
        try host.send(BinaryHarness.notification("$/cancelRequest", #"{"id":2}"#))
        let error = try host.response(to: 2).response["error"]
        #expect(error?["code"] == -32800)
        // Not a plain "Request cancelled", which says nothing was done: the call had reached the plugin.
        #expect(error?["message"] == "Request cancelled: plugin probe was told to stop; what it did before, if anything, is unknown", "\(error ?? .null)")
    }

    @Test("A line on a plugin's stdout that is not JSON is skipped and logged once under its name; the call is answered")
    func skipsStrayLines() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "probe.chatter")["result"] == ["chatter": true])
        #expect(try Self.call(host, 2, "probe.chatter")["result"] == ["chatter": true])
        // Fifty more (a chatty plugin, not a broken one): it keeps serving.
        try host.send(BinaryHarness.request(3, "probe.garbage", #"{"lines":50}"#))
        #expect(try Self.call(host, 4, "probe.echo", #"{"text":"still"}"#)["result"] == ["text": "still"])
        try host.send(BinaryHarness.notification("$/cancelRequest", #"{"id":3}"#))
        #expect(try host.response(to: 3).response["error"]?["code"] == -32800)
        host.closeInput()
        _ = try host.waitForExit()
        let notes = host.stderrText.split(separator: "\n").filter { $0.contains("not JSON on its stdout") }
        #expect(notes.count == 1, "\(notes)")
        #expect(notes.first?.contains("plugin probe wrote a line that is not JSON on its stdout: skipped") == true)
        #expect(!host.stderrText.contains("broke the protocol"))
    }

    @Test("More than 100 lines that are not JSON within a minute is reason protocol; the plugin is stopped and restarted on the next call")
    func stopsAPluginWritingGarbage() throws {
        let host = try Self.host()
        let answer = try Self.call(host, 1, "probe.garbage")
        #expect(answer["error"]?["data"]?["reason"] == "protocol")
        #expect(try Self.call(host, 2, "probe.echo", #"{"text":"ok"}"#)["result"] == ["text": "ok"])
    }

    @Test("A frame over the host's message limit from a plugin is reason protocol")
    func stopsAPluginWritingTooMuch() throws {
        let host = try Self.host(["--max-message-bytes", "65536"])
        let answer = try Self.call(host, 1, "probe.huge")
        #expect(answer["error"]?["data"]?["reason"] == "protocol")
        #expect(try Self.call(host, 2, "probe.echo", #"{"text":"ok"}"#)["result"] == ["text": "ok"])
    }

    @Test("A plugin starts with a clean environment: the SDKs' variables, passEnv and env, no host secrets")
    func cleanEnvironment() throws {
        let host = try Self.host()
        let env = try #require(try Self.call(host, 1, "probe.env")["result"]?["env"]?.objectValue)
        #expect(env["PROBE_SET"] == "from-manifest")
        #expect(env["PROBE_PASSED"] == "passed")
        #expect(env["SECRET_TOKEN"] == nil)
        #expect(env["PATH"] != nil)
    }

    @Test("Callbacks into the host: allowed by calls they are answered, anything else is forbidden")
    func scopesCallbacks() throws {
        let host = try Self.host()
        let allowed = try Self.call(host, 1, "probe.call", #"{"method":"feed.list","params":{"limit":2}}"#)
        #expect(allowed["result"]?["answer"]?["result"]?["items"]?.arrayValue?.count == 2)
        let ping = try Self.call(host, 2, "probe.call", #"{"method":"host.ping"}"#)
        #expect(ping["result"]?["answer"]?["result"] == "pong")
        let refused = try Self.call(host, 3, "probe.call", #"{"method":"mail.send","params":{}}"#)
        let error = refused["result"]?["answer"]?["error"]
        #expect(error?["code"] == -32072)
        #expect(error?["data"]?["reason"] == "forbidden")
        #expect(error?["data"]?["method"] == "mail.send")
        #expect(error?["data"]?["allowed"] == ["feed.*", "host.ping", "inbox.list", "probe.echo", "exit", "shutdown"])
        let sampling = try Self.call(host, 4, "probe.call", #"{"method":"sampling/createMessage","params":{}}"#)
        #expect(sampling["result"]?["answer"]?["error"]?["code"] == -32601)
    }

    @Test("exit and shutdown are never callbacks, even where calls lists them: refused -32072, and the plugin's connection goes on")
    func lifecycleIsNoCallback() throws {
        let host = try Self.host()
        for (id, method) in [(1, "exit"), (2, "shutdown")] {
            let refused = try Self.call(host, id, "probe.call", #"{"method":"\#(method)"}"#)
            #expect(refused["result"]?["answer"]?["error"]?["code"] == -32072, "\(method): \(refused)")
            #expect(refused["result"]?["answer"]?["error"]?["message"]?.stringValue?.contains("namespace.method") == true)
        }
        // Neither ended the plugin's connection nor refused its next callback.
        let ping = try Self.call(host, 3, "probe.call", #"{"method":"host.ping"}"#)
        #expect(ping["result"]?["answer"]?["result"] == "pong", "\(ping)")
        #expect(try Self.call(host, 4, "probe.echo", #"{"text":"ok"}"#)["result"] == ["text": "ok"])
    }

    @Test("A callback waits in the plugin's own slots: with one client slot, a tool calling back still finishes")
    func callbacksNeverDeadlock() throws {
        let host = try Self.host(["--max-in-flight", "1"])
        let answer = try Self.call(host, 1, "probe.call", #"{"method":"feed.list","params":{"limit":1}}"#)
        #expect(answer["result"]?["answer"]?["result"]?["items"]?.arrayValue?.count == 1)
    }

    @Test("The plugin's progress reaches the client as $/progress with the client's own token")
    func forwardsProgress() throws {
        let host = try Self.host()
        try host.send(BinaryHarness.request(1, "probe.progress", #"{"_meta":{"progressToken":"mine"}}"#))
        let (response, before) = try host.response(to: 1)
        #expect(response["result"]?["token"] == true)
        let progress = try #require(before.first { $0["method"] == "$/progress" })
        #expect(progress["params"]?["token"] == "mine")
        #expect(progress["params"]?["value"]?["message"] == "halfway")
    }

    @Test("A bare host.ping starts no plugin; at exit the plugins are stopped and reaped")
    func startsLazilyAndStopsAtExit() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "host.ping")["result"] == "pong")
        #expect(Self.children(of: host.pid).isEmpty, "no plugin was started")
        let items = try Self.call(host, 2, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        let pid = try #require(items.first { $0["name"] == "probe" }?["pid"]?.int64Value)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(BinaryHarness.waitUntilGone(pid_t(pid), within: BinaryHarness.answerTimeout))
    }

    @Test("A plugin runs with default signal dispositions, nothing blocked, in a process group of its own")
    func restoresSignals() throws {
        let host = try Self.host()
        let result = try Self.call(host, 1, "probe.signals")["result"]
        #expect(result?["blocked"] == "0000000000000000")
        #expect(result?["ignored"] == "0000000000000000")
        #expect(result?["group"] == true)
    }

    @Test("tools/list_changed from a plugin pushes host.methodsChanged, and the new tool is a method")
    func followsToolChanges() throws {
        let host = try Self.host()
        // The plugin's start is announced too: wait for that first.
        try host.send(BinaryHarness.request(0, "probe.echo", #"{"text":"start"}"#))
        var started = try host.response(to: 0).before
        while !started.contains(where: { $0["method"] == "host.methodsChanged" }) { started.append(try host.nextMessage()) }
        try host.send(BinaryHarness.request(1, "probe.grow"))
        var pushed = try host.response(to: 1).before
        while !pushed.contains(where: { $0["method"] == "host.methodsChanged" }) { pushed.append(try host.nextMessage()) }
        #expect(pushed.first { $0["method"] == "host.methodsChanged" }?["params"]?["namespace"] == "probe")
        #expect(try Self.call(host, 2, "probe.grown")["result"] == ["grown": true])
    }

    @Test("A host killed with SIGKILL leaves no plugin behind")
    func pluginsDieWithTheHost() throws {
        let host = try Self.host()
        let items = try Self.call(host, 1, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        let pid = try #require(items.first { $0["name"] == "probe" }?["pid"]?.int64Value)
        host.signal(SIGKILL)
        _ = try host.waitForExit()
        #expect(BinaryHarness.waitUntilGone(pid_t(pid), within: BinaryHarness.answerTimeout))
    }

    @Test("At exit a plugin that ignores end of input and SIGTERM is killed, and the host still exits 0")
    func killsAStubbornPluginAtExit() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "probe.stubborn")["result"] == ["stubborn": true])
        let items = try Self.call(host, 2, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        let pid = try #require(items.first { $0["name"] == "probe" }?["pid"]?.int64Value)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(BinaryHarness.waitUntilGone(pid_t(pid), within: BinaryHarness.answerTimeout))
    }

    @Test("A plugin that ignores end of input and SIGTERM dies with a SIGKILLed host (parent-death signal)")
    func parentDeathBackstop() throws {
        let host = try Self.host()
        #expect(try Self.call(host, 1, "probe.stubborn")["result"] == ["stubborn": true])
        let items = try Self.call(host, 2, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        let pid = try #require(items.first { $0["name"] == "probe" }?["pid"]?.int64Value)
        host.signal(SIGKILL)
        _ = try host.waitForExit()
        #expect(BinaryHarness.waitUntilGone(pid_t(pid), within: BinaryHarness.answerTimeout))
    }

    /// The pids of `pid`'s children, from /proc.
    static func children(of pid: pid_t) -> [String] {
        BinaryHarness.threadIDs(of: pid).flatMap { thread in
            (readText("/proc/\(pid)/task/\(thread)/children") ?? "").split(separator: " ").map(String.init)
        }
    }

    /// A small file's text (at most `limit` bytes).
    static func readText(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var total = 0
        while total < limit {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, limit - total) }
            guard count > 0 else { break }
            total += count
        }
        return String(decoding: bytes[..<total], as: UTF8.self)
    }
}
