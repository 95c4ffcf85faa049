#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
@testable import PluginHost
import Testing

@Suite("An in-memory MCP peer that misbehaves")
struct PeerFaultTests {
    static func script(onCall: @escaping @Sendable (MCPPeer.Run, JSONValue) -> Void) -> MCPPeer.Script {
        var script = MCPPeer.Script()
        script.onCall = onCall
        return script
    }

    @Test("stray lines that are not JSON are skipped: the call after them is answered")
    func strayLinesSkipped() async throws {
        let peer = MCPPeer(script: Self.script { run, request in
            run.writeLine("Server starting on stdio...")
            run.writeLine("{ not json")
            run.reply(to: request, result: ["content": [["type": "text", "text": "fine"]]])
        })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        #expect(try await client.call("peer.echo", ["text": "x"])["result"] == ["content": [["type": "text", "text": "fine"]]])
        #expect(client.peer.signals.items.isEmpty, "a stray line stops nothing")
        await client.finish()
    }

    @Test("JSON that is not JSON-RPC breaks the protocol: the call fails -32070 protocol with the detail, and the plugin is killed",
          arguments: [#"{"hello":"world"}"#, #"[1,2,3]"#, #""just a string""#])
    func notJSONRPC(line: String) async throws {
        let peer = MCPPeer(script: Self.script { run, _ in run.writeLine(line) })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "x"])["error"]
        #expect(error?["code"] == -32070)
        #expect(error?["data"]?["reason"] == "protocol", "\(error?.jsonText() ?? "")")
        #expect(error?["data"]?["detail"]?.stringValue?.isEmpty == false)
        _ = try await peer.signals.first("SIGKILL") { $0 == SIGKILL }
        await client.finish()
    }

    @Test("a line longer than --max-message-bytes without its end breaks the protocol")
    func overlongLine() async throws {
        var limits = ConnectionLimits()
        limits.maxMessageBytes = 4_096
        let peer = MCPPeer(script: Self.script { run, _ in run.writeLine(#"{"jsonrpc":"2.0","id":1,"result":""# + String(repeating: "x", count: 10_000) + #""}"#) })
        let client = try PluginTestClient(peer: peer, limits: limits)
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "x"])["error"]
        #expect(error?["data"]?["reason"] == "protocol")
        await client.finish()
    }

    @Test("a plugin that never answers: -32070 timeout after timeoutMs, and it is sent notifications/cancelled for that request")
    func neverAnswers() async throws {
        let peer = MCPPeer(script: Self.script { _, _ in })
        let client = try PluginTestClient(peer: peer, timeoutMilliseconds: 1_000)
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "x"])["error"]
        #expect(error?["code"] == -32070)
        #expect(error?["data"] == ["plugin": "scripted", "reason": "timeout", "timeoutMs": 1_000])
        let call = try await peer.message("tools/call")
        let cancelled = try await peer.received.first("notifications/cancelled for the call") {
            $0["method"] == "notifications/cancelled" && $0["params"]?["requestId"] == call["id"]
        }
        #expect(cancelled["params"]?["reason"] == "timeout")
        // It still runs: a timed-out call is not a crash.
        let list = try await client.call("plugins.list")
        #expect(list["result"]?["items"]?.arrayValue?.first?["state"] == "running")
        await client.finish()
    }

    @Test("a plugin that exits mid-call: the call fails at once -32070 crashed with its exit status and last stderr lines")
    func crashMidCall() async throws {
        let peer = MCPPeer(script: Self.script { run, _ in
            run.writeStderr("about to fall over")
            run.writeStderr("Traceback: boom")
            run.end(.exited(code: 3))
        })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "x"])["error"]
        #expect(error?["code"] == -32070)
        #expect(error?["data"] == ["plugin": "scripted", "reason": "crashed", "exitStatus": 3,
                                   "stderrTail": ["about to fall over", "Traceback: boom"]])
        await client.finish()
    }

    @Test("a plugin killed by a signal mid-call: data.signal names it")
    func killedMidCall() async throws {
        let peer = MCPPeer(script: Self.script { run, _ in run.end(.signaled(SIGSEGV)) })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let error = try await client.call("peer.echo", ["text": "x"])["error"]
        #expect(error?["data"]?["reason"] == "crashed")
        #expect(error?["data"]?["signal"] == .integer(Int64(SIGSEGV)))
        await client.finish()
    }

    @Test("every call in flight when the plugin crashes fails at once, not only the one that crashed it")
    func crashFailsEveryCall() async throws {
        let peer = MCPPeer(script: Self.script { run, request in
            if request["params"]?["arguments"]?["text"] == "crash" { run.end(.exited(code: 1)) }
        })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let waiting = try await client.request("peer.echo", ["text": "wait"])
        _ = try await peer.message("tools/call")
        let crashing = try await client.request("peer.echo", ["text": "crash"])
        for id in [waiting, crashing] {
            #expect(try await client.response(to: id)["error"]?["data"]?["reason"] == "crashed")
        }
        await client.finish()
    }

    @Test("after a crash the next call starts a new run, and plugins.list counts the restart")
    func restartAfterCrash() async throws {
        let peer = MCPPeer(script: Self.script { run, request in
            if run.index == 0 { return run.end(.exited(code: 1)) }
            run.reply(to: request, result: ["content": [["type": "text", "text": .string("run \(run.index)")]]])
        })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        #expect(try await client.call("peer.echo", ["text": "x"])["error"]?["data"]?["reason"] == "crashed")
        #expect(try await client.call("peer.echo", ["text": "x"])["result"] == ["content": [["type": "text", "text": "run 1"]]])
        let item = try await client.call("plugins.list")["result"]?["items"]?.arrayValue?.first
        #expect(item?["state"] == "running")
        #expect(item?["restarts"] == 1)
        #expect(item?["lastError"]?.stringValue?.contains("exited with status 1") == true)
        await client.finish()
    }

    @Test("maxCrashes crashes make it failed: calls fail fast with reason failed until plugins.restart, which runs it again")
    func failedUntilRestart() async throws {
        let peer = MCPPeer(script: Self.script { run, request in
            if run.index < 2 { return run.end(.exited(code: 1)) }
            run.reply(to: request, result: ["content": []])
        })
        let client = try PluginTestClient(peer: peer, maxCrashes: 2)
        try await client.start()
        for _ in 0..<2 { #expect(try await client.call("peer.echo", ["text": "x"])["error"]?["data"]?["reason"] == "crashed") }
        let refused = try await client.call("peer.echo", ["text": "x"])["error"]
        #expect(refused?["data"]?["reason"] == "failed")
        #expect(peer.runs.items.count == 2, "a failed plugin is not started again")
        let restarted = try await client.call("plugins.restart", ["name": "scripted"])
        #expect(restarted["result"]?["name"] == "scripted")
        #expect(try await client.call("peer.echo", ["text": "x"])["result"] == ["content": []])
        await client.finish()
    }

    @Test("an answer to an id the host never sent is ignored: the real answer still comes, the plugin keeps running")
    func answerToUnknownID() async throws {
        let peer = MCPPeer(script: Self.script { run, request in
            run.send(["jsonrpc": "2.0", "id": 987_654, "result": ["content": []]])
            run.reply(to: request, result: ["content": [["type": "text", "text": "real"]]])
        })
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        #expect(try await client.call("peer.echo", ["text": "x"])["result"] == ["content": [["type": "text", "text": "real"]]])
        #expect(try await client.call("plugins.list")["result"]?["items"]?.arrayValue?.first?["state"] == "running")
        await client.finish()
    }

    @Test("at exit the host closes the plugin's stdin; a plugin that then leaves with status 0 gets no SIGTERM")
    func exitClosesStdin() async throws {
        let peer = MCPPeer()
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let run = try await peer.currentRun()
        await client.finish()
        let status = try await run.ended.first("the run's end") { _ in true }
        #expect(status == .exited(code: 0))
        #expect(peer.signals.items.isEmpty || peer.signals.items.allSatisfy { $0 == SIGKILL },
                "SIGTERM goes only to a plugin that outlives its grace time: \(peer.signals.items)")
    }
}
