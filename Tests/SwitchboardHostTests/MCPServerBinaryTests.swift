import Jansson
import SwitchboardCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The MCP server face, against the binary over real pipes: the handshake told from an LSP one,
/// version negotiation, tools page by page, calls and their errors, progress, cancellation and
/// resource updates in MCP's words. Every answer is checked against its schema by the harness.
@Suite("MCP server face, against the binary", .offCooperativePool)
struct MCPServerBinaryTests {
    typealias H = BinaryHarness

    static let memory = ["--backend", "memory", "--now", "2026-01-01T09:00:00Z"]
    static let clientInfo = #""capabilities":{},"clientInfo":{"name":"test","version":"1"}"#

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try host.send(H.request(id, method, params))
        return try host.response(to: .integer(Int64(id))).response
    }

    /// The first `method` notification among `earlier` (read while waiting for an answer), else the next
    /// to arrive; fails on the harness's timeout.
    static func notification(_ method: String, from host: SpawnedHost, earlier: [JSONValue] = []) throws -> JSONValue {
        if let found = earlier.first(where: { $0["method"]?.stringValue == method }) { return found }
        while true {
            let message = try host.nextMessage()
            if message["method"]?.stringValue == method { return message }
        }
    }

    @Test("initialize with protocolVersion and clientInfo is MCP's; without them the host's own answer", arguments: [
        ("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"),
        ("2099-01-01", "2025-11-25"),
    ])
    func handshake(asked: String, answered: String) throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let mcp = try Self.call(host, 1, "initialize", #"{"protocolVersion":"\#(asked)",\#(Self.clientInfo)}"#)["result"]
        #expect(mcp?["protocolVersion"] == .string(answered))
        #expect(mcp?["capabilities"]?["resources"] == ["subscribe": true, "listChanged": true])
        #expect(mcp?["capabilities"]?["framing"] == nil)
        try host.send(H.notification("notifications/initialized"))
        #expect(try Self.call(host, 2, "ping")["result"] == [:])

        // LSP's initialize has no protocolVersion; protocolVersion alone is echoed in the host's answer.
        let plain = try SpawnedHost(arguments: Self.memory)
        let lsp = try Self.call(plain, 1, "initialize", #"{"processId":null,"capabilities":{},"clientInfo":{"name":"emacs"}}"#)["result"]
        #expect(lsp?["capabilities"]?["framing"] == "ndjson")
        let bare = try Self.call(plain, 2, "initialize", #"{"protocolVersion":"\#(asked)"}"#)["result"]
        #expect(bare?["capabilities"]?["framing"] == "ndjson" && bare?["protocolVersion"] == .string(asked))
        // An MCP handshake gone wrong is named, not answered as the host's own.
        for (id, members, field) in [(3, #""capabilities":5,"clientInfo":{"name":"x","version":"1"}"#, "capabilities"),
                                     (4, #""capabilities":{},"clientInfo":"zz""#, "clientInfo")] {
            let wrong = try Self.call(plain, id, "initialize", #"{"protocolVersion":"\#(asked)",\#(members)}"#)
            #expect(wrong["error"]?["code"] == -32602 && wrong["error"]?["data"]?["field"] == .string(field), "\(wrong)")
        }
    }

    @Test("An MCP client gets only notifications MCP defines: chat.send as a tool sends no chat.messageState, which a JSON-RPC client gets")
    func onlyMCPNotifications() throws {
        let send = #"{"roomId":"dm-u0-u1","text":"hi","clientMessageId":"c1"}"#
        // A JSON-RPC client: the message is stored, and chat.messageState says so.
        let plain = try SpawnedHost(arguments: Self.memory)
        _ = try Self.call(plain, 1, "chat.send", send)
        #expect(try Self.notification("chat.messageState", from: plain)["params"]?["state"] == "sent")

        let host = try SpawnedHost(arguments: Self.memory)
        _ = try Self.call(host, 1, "initialize", #"{"protocolVersion":"2025-11-25",\#(Self.clientInfo)}"#)
        try host.send(H.notification("notifications/initialized"))
        var seen: [JSONValue] = []
        try host.send(H.request(2, "tools/call", #"{"name":"chat.send","arguments":\#(send)}"#))
        let answer = try host.response(to: 2)
        seen += answer.before
        #expect(answer.response["result"]?["isError"] == false, "\(answer.response)")
        // Stored once chat.history shows it sent; then a ping's answer comes after anything sent before it.
        for id in 3... {
            try host.send(H.request(id, "tools/call", #"{"name":"chat.history","arguments":{"roomId":"dm-u0-u1","limit":5}}"#))
            let history = try host.response(to: .integer(Int64(id)))
            seen += history.before
            let items = history.response["result"]?["structuredContent"]?["items"]?.arrayValue ?? []
            if items.contains(where: { $0["clientMessageId"] == "c1" && $0["state"] == "sent" }) { break }
        }
        try host.send(H.request(100, "ping"))
        seen += try host.response(to: 100).before
        #expect(seen.allSatisfy { $0["method"]?.stringValue?.hasPrefix("notifications/") ?? true }, "\(seen)")
    }

    @Test("tools/list answers every method on one page, each with an object inputSchema; a foreign cursor is -32602")
    func toolsOnOnePage() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let page = try #require(try Self.call(host, 10, "tools/list", "{}")["result"])
        #expect(page["nextCursor"] == nil)
        let tools = page["tools"]?.arrayValue ?? []
        let names = tools.map { $0["name"]?.stringValue ?? "" }
        for tool in tools { #expect(tool["inputSchema"]?["type"] == "object") }
        #expect(names.count > 40)
        #expect(names == names.sorted() && Set(names).count == names.count)
        #expect(names.contains("inbox.list") && names.contains("host.sleep") && names.contains("feed.get") && names.contains("mail.send"))
        #expect(!names.contains("mail.subscribe") && !names.contains("initialize") && !names.contains("tools/list"))
        for (id, cursor) in ["elsewhere", "after:", "after:~", "", String(repeating: "after:x", count: 100_000), #"after:0:\u0000"#].enumerated() {
            let refused = try Self.call(host, 100 + id, "tools/list", #"{"cursor":"\#(cursor)"}"#)
            #expect(refused["error"]?["data"]?["field"] == "cursor", "cursor \(cursor.prefix(20))")
        }
        // Past the last tool: an empty last page.
        let end = try Self.call(host, 200, "tools/list", #"{"cursor":"\#(Cursor(list: "tools/list", sortKey: "0", id: "~").encoded)"}"#)["result"]
        #expect(end?["tools"] == [] && end?["nextCursor"] == nil)
    }

    @Test("tools/call answers structuredContent and the same JSON as text; a domain error is isError, an unknown tool -32602")
    func toolCalls() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let inbox = try #require(try Self.call(host, 1, "tools/call", #"{"name":"inbox.list","arguments":{"limit":2}}"#)["result"])
        #expect(inbox["isError"] == false)
        #expect(inbox["structuredContent"]?["items"]?.arrayValue?.count == 2)
        let text = try #require(inbox["content"]?.arrayValue?.first?["text"]?.stringValue)
        #expect(try JSONValue(parsing: text) == inbox["structuredContent"])

        let missing = try #require(try Self.call(host, 2, "tools/call", #"{"name":"feed.get","arguments":{"id":99999999}}"#)["result"])
        #expect(missing["isError"] == true)
        #expect(missing["structuredContent"] == nil)
        let error = try JSONValue(parsing: try #require(missing["content"]?.arrayValue?.first?["text"]?.stringValue))
        #expect(error["code"] == -32004)

        let unknown = try Self.call(host, 3, "tools/call", #"{"name":"mail.subscribe","arguments":{}}"#)
        #expect(unknown["error"]?["code"] == -32602)
        let pong = try #require(try Self.call(host, 4, "tools/call", #"{"name":"host.ping"}"#)["result"])
        #expect(pong["content"]?.arrayValue?.first?["text"] == "\"pong\"" && pong["structuredContent"] == nil)
        // MCP's arguments are an object; null is taken as none.
        for (id, arguments) in [(5, #""x""#), (6, "[]"), (7, "5")] {
            let refused = try Self.call(host, id, "tools/call", #"{"name":"host.echo","arguments":\#(arguments)}"#)
            #expect(refused["error"]?["code"] == -32602 && refused["error"]?["data"]?["field"] == "arguments", "\(refused)")
        }
        #expect(try Self.call(host, 8, "tools/call", #"{"name":"host.ping","arguments":null}"#)["result"]?["isError"] == false)
        // MCP's requests are read tolerantly: a member a later revision adds (2025-11-25's task) is ignored.
        #expect(try Self.call(host, 9, "tools/call", #"{"name":"host.ping","task":{"ttl":1000}}"#)["result"]?["isError"] == false)
        #expect(try Self.call(host, 10, "tools/list", #"{"future":1}"#)["result"]?["tools"] != nil)
        #expect(try Self.call(host, 11, "resources/read", #"{"uri":"mail://inbox","future":true}"#)["result"]?["contents"] != nil)
    }

    @Test("a plugin's tool is an MCP tool: its inputSchema passed on, its result structured, its refusal isError")
    func pluginTools() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginShippedTests.repository + "/Plugins"] + Self.memory,
                                   environment: PluginShippedTests.offlineWeather)
        var tools: [JSONValue] = []
        var cursor: String?
        repeat {
            let page = try #require(try Self.call(host, 10 + tools.count, "tools/list", cursor.map { #"{"cursor":"\#($0)"}"# } ?? "{}")["result"])
            tools += page["tools"]?.arrayValue ?? []
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil && tools.count < 1000
        let forecast = try #require(tools.first { $0["name"] == "weather.forecast" })
        #expect(Set(forecast["inputSchema"]?["required"]?.arrayValue ?? []) == ["date"])
        let params = #"{"name":"weather.forecast","arguments":{"date":"2026-11-22","place":"Berlin"}}"#
        let answer = try #require(try Self.call(host, 1, "tools/call", params)["result"])
        #expect(answer["isError"] != true && answer["structuredContent"]?["date"] == "2026-11-22")
        #expect(answer["structuredContent"]?["source"] == "synthetic")
        let refused = try #require(try Self.call(host, 2, "tools/call", #"{"name":"weather.forecast","arguments":{"date":"soon","place":"Berlin"}}"#)["result"])
        #expect(refused["isError"] == true)
        let error = try JSONValue(parsing: try #require(refused["content"]?.arrayValue?.first?["text"]?.stringValue))
        #expect(error["data"]?["field"] == "date")
    }

    @Test("a plugin tool's CallToolResult passes through tools/call unchanged: every content block, structuredContent, isError")
    func pluginContentPassesThrough() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginBinaryTests.fixtures, "--plugin-grace", "500"] + Self.memory)
        let picture = try #require(try Self.call(host, 1, "tools/call", #"{"name":"probe.picture","arguments":{}}"#)["result"])
        let blocks = picture["content"]?.arrayValue ?? []
        #expect(blocks.compactMap { $0["type"]?.stringValue } == ["text", "image", "audio", "resource_link", "resource"])
        #expect(blocks.first == ["type": "text", "text": "a dot"], "a text block is not wrapped in another")
        #expect(blocks.dropFirst().first == ["type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"])
        #expect(blocks.dropFirst(4).first?["resource"]?["text"] == "one")
        #expect(picture["structuredContent"] == nil)
        let echo = try #require(try Self.call(host, 2, "tools/call", #"{"name":"probe.echo","arguments":{"text":"hi"}}"#)["result"])
        #expect(echo["structuredContent"] == ["text": "hi"])
        #expect(echo["content"] == [["type": "text", "text": #"{"text": "hi"}"#]], "the plugin's own text, as it wrote it")
        let failed = try #require(try Self.call(host, 3, "tools/call", #"{"name":"probe.fail","arguments":{}}"#)["result"])
        #expect(failed == ["content": [["type": "text", "text": "probe failed on purpose"]], "isError": true])
        // The plain face keeps its own shape: {content} without structuredContent.
        let plain = try #require(try Self.call(host, 4, "probe.picture")["result"])
        #expect(plain["content"]?.arrayValue?.count == 5)
    }

    @Test("an MCP client's progress token brings notifications/progress, and notifications/cancelled stops the call with -32800")
    func progressAndCancellation() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        _ = try Self.call(host, 1, "initialize", #"{"protocolVersion":"2025-11-25",\#(Self.clientInfo)}"#)
        try host.send(H.request(2, "tools/call", #"{"name":"host.sleep","arguments":{"ms":600000,"steps":6000},"_meta":{"progressToken":"p"}}"#))
        let progress = try Self.notification("notifications/progress", from: host)
        #expect(progress["params"]?["progressToken"] == "p")
        #expect(progress["params"]?["progress"] == 1 && progress["params"]?["total"] == 6000)
        try host.send(H.notification("notifications/cancelled", #"{"requestId":2,"reason":"test"}"#))
        #expect(try host.response(to: 2).response["error"]?["code"] == -32800)
    }

    @Test("ping and server/discover ignore params members a later revision may add, as MCP's base params are open")
    func openParams() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        #expect(try Self.call(host, 1, "ping", #"{"futureMember":1,"_meta":{}}"#)["result"] == [:])
        #expect(try Self.call(host, 2, "server/discover", #"{"futureMember":1}"#)["result"]?["supportedVersions"] != nil)
    }

    @Test("a plugin's structuredContent that breaks the outputSchema it declared is an error naming the member, on both faces; one that matches passes")
    func pluginOutputSchemaHeld() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginBinaryTests.fixtures, "--plugin-grace", "500"] + Self.memory)
        let good = try #require(try Self.call(host, 1, "tools/call", #"{"name":"probe.counted","arguments":{"n":5}}"#)["result"])
        #expect(good["structuredContent"] == ["n": 5] && good["isError"] == nil)
        let bad = try #require(try Self.call(host, 2, "tools/call", #"{"name":"probe.counted","arguments":{"n":"five"}}"#)["result"])
        #expect(bad["isError"] == true && bad["structuredContent"] == nil, "\(bad)")
        let error = try JSONValue(parsing: try #require(bad["content"]?.arrayValue?.first?["text"]?.stringValue))
        #expect(error["code"] == -32070 && error["message"]?.stringValue?.contains("structuredContent.n: expected integer") == true, "\(error)")
        // What the plugin answered is not quoted, in the error or the log: a tool's result may hold a file's text.
        #expect(!error.jsonText().contains("five"), "\(error)")
        // The plain face: the same error, as a JSON-RPC error; a value the schema refuses is not quoted.
        let plain = try Self.call(host, 3, "probe.counted", #"{"n":-12345}"#)["error"]
        #expect(plain?["code"] == -32070 && plain?["message"]?.stringValue?.contains("structuredContent.n") == true, "\(plain ?? .null)")
        #expect(!(plain ?? .null).jsonText().contains("12345"), "\(plain ?? .null)")
        #expect(try Self.call(host, 4, "probe.counted", #"{"n":7}"#)["result"] == ["n": 7])
        host.closeInput()
        _ = try host.readToEndOfOutput()
        _ = try host.waitForExit()
        #expect(host.stderrText.contains("outputSchema") && !host.stderrText.contains("12345"), "\(host.stderrText)")
    }

    @Test("a cancelled call of a plugin's tool is a JSON-RPC -32800 naming the plugin, as a built-in tool's is, not an isError result")
    func pluginToolCancelled() throws {
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginBinaryTests.fixtures, "--plugin-grace", "500"] + Self.memory)
        _ = try Self.call(host, 1, "initialize", #"{"protocolVersion":"2025-11-25",\#(Self.clientInfo)}"#)
        try host.send(H.request(2, "tools/call", #"{"name":"probe.hang","arguments":{},"_meta":{"progressToken":"h"}}"#))
        // The plugin says it has the call.
        _ = try Self.notification("notifications/progress", from: host)
        try host.send(H.notification("notifications/cancelled", #"{"requestId":2,"reason":"test"}"#))
        let answer = try host.response(to: 2).response
        #expect(answer["result"] == nil, "\(answer)")
        #expect(answer["error"]?["code"] == -32800 && answer["error"]?["data"]?["plugin"] == "probe", "\(answer)")
    }

    @Test("resources/subscribe then a write through tools/call sends notifications/resources/updated {uri}; reads and lists in MCP's shapes")
    func resourceUpdates() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let listed = try Self.call(host, 1, "resources/list")["result"]?["resources"]?.arrayValue ?? []
        #expect(listed.contains { $0["uri"] == "mail://inbox" && $0["owner"] == nil })
        #expect(try Self.call(host, 2, "resources/templates/list")["result"]?["resourceTemplates"]?.arrayValue?.first?["uriTemplate"] == "feed://item/{id}")
        let read = try Self.call(host, 3, "resources/read", #"{"uri":"feed://item/3"}"#)
        #expect(read["result"]?["contents"]?.arrayValue?.first?["uri"] == "feed://item/3")
        #expect(try Self.call(host, 4, "resources/read", #"{"uri":"nowhere://x"}"#)["error"]?["code"] == -32002)
        // An item that is not there is a resource not found too, MCP's one code, naming the URI.
        let missing = try Self.call(host, 40, "resources/read", #"{"uri":"feed://item/99999999"}"#)["error"]
        #expect(missing?["code"] == -32002 && missing?["data"] == ["uri": "feed://item/99999999"], "\(missing ?? .null)")
        // A long URI is named by an excerpt, as every error names what it got.
        let long = try Self.call(host, 41, "resources/read", #"{"uri":"x://\#(String(repeating: "y", count: 100_000))"}"#)["error"]
        #expect(long?["code"] == -32002 && (long?["data"]?["uri"]?.stringValue?.utf8.count ?? .max) < 1_000)

        #expect(try Self.call(host, 5, "resources/subscribe", #"{"uri":"mail://inbox"}"#)["result"] == [:])
        #expect(try Self.call(host, 6, "resources/subscribe", #"{"uri":"mail://inbox"}"#)["result"] == [:])
        try host.send(H.request(7, "tools/call", #"{"name":"mail.send","arguments":{"to":"ada@example.com","subject":"Hi","text":"Lunch?"}}"#))
        let sent = try host.response(to: 7)
        #expect(sent.response["result"]?["isError"] == false)
        let updated = try Self.notification("notifications/resources/updated", from: host, earlier: sent.before)
        #expect(updated["params"] == ["uri": "mail://inbox"])
        #expect(try Self.call(host, 8, "resources/unsubscribe", #"{"uri":"mail://inbox"}"#)["result"] == [:])
        host.closeInput()
        let rest = try host.readToEndOfOutput()
        #expect(!rest.contains { $0["method"] == "resources.updated" }, "no host-worded update reaches an MCP client")
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("2026-07-28: server/discover without a handshake; results to requests naming that revision carry resultType and caching")
    func statelessDiscovery() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let meta = #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#
        let discovered = try #require(try Self.call(host, 1, "server/discover", "{\(meta)}")["result"])
        #expect(discovered["supportedVersions"]?.arrayValue?.first == "2026-07-28")
        #expect(discovered["supportedVersions"]?.arrayValue?.contains("2025-11-25") == true)
        #expect(discovered["capabilities"]?["prompts"] != nil, "prompts/list is served: \(discovered)")
        let modern = try #require(try Self.call(host, 2, "tools/list", "{\(meta)}")["result"])
        #expect(modern["resultType"] == "complete" && modern["ttlMs"] == 0 && modern["cacheScope"] == "private")
        let call = try Self.call(host, 3, "tools/call", #"{"name":"host.ping",\#(meta)}"#)["result"]
        #expect(call?["resultType"] == "complete" && call?["ttlMs"] == nil)
        let legacy = try #require(try Self.call(host, 4, "tools/list")["result"])
        #expect(legacy["resultType"] == nil && legacy["ttlMs"] == nil)
    }

    @Test("2026-07-28: subscriptions/listen acknowledges the URIs it honors, each once, streams updates naming itself, and ends when cancelled or at end of input; a member of the wrong kind is -32602")
    func statelessListen() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let stream = #"{"io.modelcontextprotocol/subscriptionId":"listen-1"}"#
        for (id, notifications, field) in [(40, #"{"resourceSubscriptions":"mail://inbox"}"#, "notifications.resourceSubscriptions"),
                                           (41, #"{"resourceSubscriptions":["mail://inbox",5]}"#, "notifications.resourceSubscriptions[1]"),
                                           (42, "5", "notifications")] {
            let refused = try Self.call(host, id, "subscriptions/listen", #"{"notifications":\#(notifications)}"#)
            #expect(refused["error"]?["code"] == -32602 && refused["error"]?["data"]?["field"] == .string(field), "\(refused)")
        }
        // Without notifications: named as an object it needs, as its wrong type is.
        let missing = try Self.call(host, 43, "subscriptions/listen", #"{"futureMember":1}"#)["error"]
        #expect(missing?["data"]?["field"] == "notifications" && missing?["message"]?.stringValue?.contains("an object") == true, "\(missing ?? .null)")
        try host.send(#"{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["mail://inbox","nowhere://x","mail://inbox"]}}}"#)
        let ack = try Self.notification("notifications/subscriptions/acknowledged", from: host)
        #expect(ack["params"]?["notifications"] == ["resourceSubscriptions": ["mail://inbox"]])
        #expect(ack["params"]?["_meta"] == (try JSONValue(parsing: stream)))
        try host.send(H.request(2, "tools/call", #"{"name":"mail.send","arguments":{"to":"ada@example.com","subject":"Hi","text":"Lunch?"}}"#))
        let sent = try host.response(to: 2)
        let updated = try Self.notification("notifications/resources/updated", from: host, earlier: sent.before)
        #expect(updated["params"] == ["uri": "mail://inbox", "_meta": try JSONValue(parsing: stream)])
        try host.send(H.notification("notifications/cancelled", #"{"requestId":"listen-1"}"#))
        #expect(try host.response(to: "listen-1").response["error"]?["code"] == -32800)

        let ending = try SpawnedHost(arguments: Self.memory)
        try ending.send(#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["feed://items"]}}}"#)
        _ = try Self.notification("notifications/subscriptions/acknowledged", from: ending)
        ending.closeInput()
        #expect(try ending.response(to: 7).response["result"] == ["resultType": "complete"])
        #expect(try ending.waitForExit() == .exited(0))
    }

    @Test("stdin closed right after one request still gets its answer, every time (the Python SDK's server drops some)")
    func answerAfterEndOfInput() throws {
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"host.sleep","arguments":{"ms":20,"steps":1}}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inbox.list","arguments":{"limit":1}}}"#,
        ]
        var answered = 0
        for round in 0..<20 {
            let run = try H.run(Self.memory, input: Array((requests[round % 2] + "\n").utf8))
            let answer = try? JSONValue(parsing: run.stdout)
            if answer?["result"]?["isError"] == false { answered += 1 }
            #expect(run.termination == .exited(0))
        }
        #expect(answered == 20)
    }

    @Test("The official MCP Python SDK's ClientSession drives switchboard: every tool on one page, a call, a resource and its update, progress, a cancel",
          .enabled(if: PluginShippedTests.mcpPython != nil, "run scripts/mcp-sdk-venv (scripts/test does) to install the mcp package"))
    func officialSDKClient() throws {
        let python = try #require(PluginShippedTests.mcpPython)
        let script = PluginShippedTests.repository + "/Tests/SwitchboardHostTests/Fixtures/mcp-client/client.py"
        let client = try SpawnedHost(arguments: [script, H.binaryPath] + Self.memory, executable: python, raw: true)
        client.closeInput()
        try client.readToEndOfOutput(within: 120_000)
        let termination = try client.waitForExit()
        #expect(termination == .exited(0), "\(client.stderrText)")
        let lines = client.stdoutText.split(separator: "\n")
        let seen = try JSONValue(parsing: String(try #require(lines.last)))
        #expect(seen["protocolVersion"] == "2025-11-25")
        #expect(seen["pages"] == 1, "every tool on the first page")
        #expect(seen["toolError"] == "limit" && seen["unknownTool"] == -32602)
        #expect(seen["updated"] == "mail://inbox")
        #expect(seen["cancelled"] == -32800)
    }

    @Test("The official MCP Python SDK calls a plugin's tools through the MCP face: one that declared no outputSchema is listed without one, so its plain result is taken",
          .enabled(if: PluginShippedTests.mcpPython != nil, "run scripts/mcp-sdk-venv (scripts/test does) to install the mcp package"))
    func officialSDKCallsPluginTools() throws {
        let python = try #require(PluginShippedTests.mcpPython)
        let script = PluginShippedTests.repository + "/Tests/SwitchboardHostTests/Fixtures/mcp-client/client_plugin_tools.py"
        let client = try SpawnedHost(arguments: [script, H.binaryPath, "--plugins", PluginAnswerBinaryTests.liars] + Self.memory,
                                     executable: python, raw: true)
        client.closeInput()
        try client.readToEndOfOutput(within: 120_000)
        #expect(try client.waitForExit() == .exited(0), "\(client.stderrText)")
        let seen = try JSONValue(parsing: String(try #require(client.stdoutText.split(separator: "\n").last)))
        #expect(seen["outputSchema"] == .null)
        #expect(seen["text"] == "ok" && seen["isError"] == false)
        #expect(seen["structured"] == ["n": 1])
    }

    /// The python of a venv with the MCP SDK 2.x: `$SWITCHBOARD_MCP2_PYTHON` (set by scripts/test), else
    /// the venv scripts/mcp-sdk2-venv makes.
    static let mcp2Python: String? = {
        if let given = getenv("SWITCHBOARD_MCP2_PYTHON") { return String(cString: given) }
        let venv = PluginShippedTests.repository + "/.build/mcp2-venv/bin/python"
        return access(venv, X_OK) == 0 ? venv : nil
    }()

    @Test("The official MCP Python SDK 2.x speaks the stateless revision to switchboard: discover, tools, a call, a read, a listen stream, a cancelled call the host stops",
          .enabled(if: mcp2Python != nil, "run scripts/mcp-sdk2-venv (scripts/test does) to install the mcp 2.x package"))
    func officialSDKStatelessClient() throws {
        let python = try #require(Self.mcp2Python)
        let script = PluginShippedTests.repository + "/Tests/SwitchboardHostTests/Fixtures/mcp-client/client_stateless.py"
        let client = try SpawnedHost(arguments: [script, H.binaryPath] + Self.memory, executable: python, raw: true)
        client.closeInput()
        try client.readToEndOfOutput(within: 120_000)
        #expect(try client.waitForExit() == .exited(0), "\(client.stderrText)")
        let seen = try JSONValue(parsing: String(try #require(client.stdoutText.split(separator: "\n").last)))
        #expect(seen["protocolVersion"] == "2026-07-28")
        #expect(seen["pages"] == 1, "every tool on the first page")
        #expect(seen["updated"] == "mail://inbox")
        #expect(seen["cancelled"] == -32800)
        #expect(seen["inFlightAfterCancel"] == 1)
        #expect(seen["afterCancel"] == "\"pong\"")
    }
}
