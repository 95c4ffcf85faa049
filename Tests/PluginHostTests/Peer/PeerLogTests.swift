#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Logging
@testable import PluginHost
import SchemaTesting
import Testing

// Log lines that Plugins/README.md documents, asserted through a captured log handler. The host's
// default level is `warning`, so each must be logged at warning or above to be seen without flags.
@Suite("Log lines a plugin causes, as Plugins/README.md documents them")
struct PeerLogTests {
    static func lines(_ client: PluginTestClient, containing text: String) -> [String] {
        client.log.items.filter { $0.contains(text) }
    }

    @Test("each line the plugin writes on stderr is logged at warning, prefixed with the plugin's name; a long one is cut at 1,000 bytes")
    func stderrPrefixed() async throws {
        var script = MCPPeer.Script()
        script.onCall = { run, request in
            run.writeStderr("loading model")
            run.writeStderr(String(repeating: "y", count: 1_500))
            run.writeStderr("done")
            run.reply(to: request, result: ["content": []])
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        _ = try await client.call("peer.echo", ["text": "x"])
        _ = try await client.logLine(containing: "scripted: done")
        let relayed = client.log.items.filter { $0.hasPrefix("warning scripted: ") }
        #expect(relayed == ["warning scripted: loading model", "warning scripted: " + String(repeating: "y", count: 1_000),
                            "warning scripted: done"])
        await client.finish()
    }

    @Test("stray lines on stdout: the first is logged once under the plugin's name; more within the minute are not")
    func strayLoggedOnce() async throws {
        var script = MCPPeer.Script()
        script.onCall = { run, request in
            run.writeLine("Server starting on stdio...")
            run.writeLine("still starting")
            run.reply(to: request, result: ["content": []])
        }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        // The answer comes after the stray lines on the same stream: once it is in, they have been read.
        for _ in 0..<3 { _ = try await client.call("peer.echo", ["text": "x"]) }
        let logged = Self.lines(client, containing: "not JSON on its stdout")
        #expect(logged.count == 1, "\(logged)")
        #expect(logged.first?.hasPrefix("warning plugin scripted wrote a line that is not JSON on its stdout") == true, "\(logged)")
        #expect(!logged.joined().contains("Server starting"), "the stray text itself is not logged")
        await client.finish()
    }

    @Test("a callback outside the manifest's calls is logged once per refusal, at warning, naming the plugin and the method")
    func forbiddenLogged() async throws {
        let peer = MCPPeer()
        let client = try PluginTestClient(peer: peer, calls: ["host.echo"])
        try await client.start()
        let run = try await peer.currentRun()
        run.send(["jsonrpc": "2.0", "id": 1, "method": "host.status"])
        _ = try await peer.received.first("the refusal") { $0["id"] == 1 && $0["method"] == nil }
        #expect(Self.lines(client, containing: "which its calls do not allow") ==
                ["warning plugin scripted called host.status, which its calls do not allow; refused"])
        await client.finish()
    }

    @Test("a crash is logged once at warning with its cause; a stop at exit logs nothing")
    func crashLogged() async throws {
        var script = MCPPeer.Script()
        script.onCall = { run, _ in run.end(.exited(code: 4)) }
        let client = try PluginTestClient(peer: MCPPeer(script: script))
        try await client.start()
        _ = try await client.call("peer.echo", ["text": "x"])
        _ = try await client.logLine(containing: "exited with status 4")
        #expect(Self.lines(client, containing: "plugin scripted:") == ["warning plugin scripted: Plugin scripted: the plugin exited with status 4"])

        let quiet = try PluginTestClient(peer: MCPPeer())
        try await quiet.start()
        _ = try await quiet.call("peer.echo", ["text": "x"])
        let run = try await quiet.peer.currentRun()
        await quiet.finish()
        _ = try await run.ended.first("the run's end") { _ in true }
        #expect(quiet.log.items.filter { $0.hasPrefix("warning") || $0.hasPrefix("error") }.isEmpty, "\(quiet.log.items)")
        await client.finish()
    }

    @Test("a protocol break is logged once, naming the detail, however much more the plugin wrote before it was killed")
    func protocolBreakLoggedOnce() async throws {
        var script = MCPPeer.Script()
        script.endsOnSignal = false
        script.onCall = { run, _ in run.writeLine(#"{"not":"json-rpc"}"#) }
        let peer = MCPPeer(script: script)
        let client = try PluginTestClient(peer: peer)
        try await client.start()
        let call = try await client.request("peer.echo", ["text": "x"])
        // Killed after the first line, the plugin had written two more: the host reads them too.
        _ = try await peer.signals.first("SIGKILL") { $0 == SIGKILL }
        let run = try await peer.currentRun()
        run.writeLine(#"{"still":"not json-rpc"}"#)
        run.writeLine(#"["nor this"]"#)
        run.end(.signaled(SIGKILL))
        #expect(try await client.response(to: call)["error"]?["data"]?["reason"] == "protocol")
        _ = try await client.logLine(containing: "broke the protocol (")
        #expect(Self.lines(client, containing: "broke the protocol:").count == 1, "\(client.log.items)")
        await client.finish()
    }

    @Test("a plugin folder whose plugin.json is refused is logged once, at error, with the reason; the refusal is in plugins.list")
    func manifestRefusalLoggedOnce() throws {
        let root = try TestScratch.folder("peerlog")
        mkdir(root + "/broken", 0o700)
        let file = fopen(root + "/broken/plugin.json", "w")
        fputs(#"{"name": "broken", "namespace": "broken", "command": []}"#, file)
        fclose(file)
        let lines = Inbox<String>()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines) }
        let configuration = PluginConfiguration.load(pluginFolders: [root], mcpConfigs: [], includeUserFolder: false,
                                                      policy: NamespacePolicy(hostMethods: []), logger: logger)
        #expect(lines.items.count == 1, "\(lines.items)")
        #expect(lines.items.first?.hasPrefix("error plugin broken is not loaded: ") == true, "\(lines.items)")
        #expect(lines.items.first?.contains("command") == true, "\(lines.items)")
        guard case .invalid(let name, _, _, let reason)? = configuration.entries.first else {
            Issue.record("not refused: \(configuration.entries)")
            return
        }
        #expect(name == "broken" && reason.contains("command"))
    }
}
