import Jansson
import Testing

/// Calls made inside the host keep the caller's session (issue 22, point 2): after `mail.login` as a
/// second, new account (an empty inbox), every way of reaching `inbox.list` in-process sees that
/// account's inbox, never the default account's (the demo inbox, which is not empty): `resources.read`,
/// MCP's `resources/read` and `tools/call`, and a plugin's callback. Against the binary over real pipes.
@Suite("In-process calls keep the caller's session (binary)", .serialized, .offCooperativePool)
struct CallerSessionBinaryTests {
    typealias H = BinaryHarness

    static let login = #"{"email":"second@example.com","password":"pw"}"#

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try host.send(H.request(id, method, params))
        return try host.response(to: .integer(Int64(id))).response
    }

    /// The conversations of `mail://inbox` as `resources.read`'s text holds them.
    static func inboxItems(inContents result: JSONValue?) throws -> [JSONValue]? {
        guard let text = result?["contents"]?.arrayValue?.first?["text"]?.stringValue else { return nil }
        return try JSONValue(parsing: text)["items"]?.arrayValue
    }

    /// A host with the demo mail and the `probe` plugin, whose `calls` allow `inbox.list`.
    static func host() throws -> SpawnedHost {
        let folder = try H.temporaryFolder("session")
        return try SpawnedHost(
            arguments: ["serve", "--plugins", PluginBinaryTests.fixtures, "--backend", "memory", "--now", "2026-01-01T09:00:00Z",
                        "--plugin-grace", "500"],
            environment: ["XDG_CONFIG_HOME": folder]
        )
    }

    @Test("resources.read mail://inbox reads the signed-in account's inbox")
    func resourcesRead() throws {
        let host = try Self.host()
        let before = try Self.inboxItems(inContents: Self.call(host, 1, "resources.read", #"{"uri":"mail://inbox"}"#)["result"])
        #expect((before?.count ?? 0) > 0, "the default account's inbox is the demo's")
        #expect(try Self.call(host, 2, "mail.login", Self.login)["result"]?["created"] == true)
        let after = try Self.inboxItems(inContents: Self.call(host, 3, "resources.read", #"{"uri":"mail://inbox"}"#)["result"])
        #expect(after == [], "the second account's inbox is empty")
    }

    @Test("MCP resources/read mail://inbox reads the signed-in account's inbox")
    func mcpResourcesRead() throws {
        let host = try Self.host()
        _ = try Self.call(host, 1, "mail.login", Self.login)
        let answer = try Self.call(host, 2, "resources/read", #"{"uri":"mail://inbox"}"#)
        #expect(try Self.inboxItems(inContents: answer["result"]) == [], "\(answer)")
    }

    @Test("MCP tools/call inbox.list lists the signed-in account's inbox")
    func mcpToolCall() throws {
        let host = try Self.host()
        let before = try Self.call(host, 1, "tools/call", #"{"name":"inbox.list","arguments":{}}"#)
        #expect((before["result"]?["structuredContent"]?["items"]?.arrayValue?.count ?? 0) > 0)
        _ = try Self.call(host, 2, "mail.login", Self.login)
        let after = try Self.call(host, 3, "tools/call", #"{"name":"inbox.list","arguments":{}}"#)
        #expect(after["result"]?["structuredContent"]?["items"] == [], "\(after)")
    }

    @Test("A plugin's callback acts for the client's session: inbox.list called back lists the signed-in account's inbox")
    func pluginCallback() throws {
        let host = try Self.host()
        let before = try Self.call(host, 1, "probe.call", #"{"method":"inbox.list","params":{}}"#)
        #expect((before["result"]?["answer"]?["result"]?["items"]?.arrayValue?.count ?? 0) > 0, "\(before)")
        _ = try Self.call(host, 2, "mail.login", Self.login)
        let after = try Self.call(host, 3, "probe.call", #"{"method":"inbox.list","params":{}}"#)
        #expect(after["result"]?["answer"]?["result"]?["items"] == [], "\(after)")
    }
}

/// The interactive prompt is a caller of its own: its connection has the limits `serve` was given, and
/// what it signs in to stays for the requests typed after (here through `resources.read`).
@Suite("The prompt keeps its session and limits", .offCooperativePool)
struct PromptSessionTests {
    @Test("at the prompt, initialize reports --max-in-flight, and resources.read reads the account mail.login signed in")
    func promptSession() throws {
        let state = try ScratchFolder("prompt-session")
        let pane = try TmuxPane(arguments: BinaryPromptTests.fixed + ["--max-in-flight", "3"], environment: ["XDG_STATE_HOME": state.path])
        try pane.waitFor(text: BinaryPromptTests.banner)
        pane.type("initialize", then: "Enter")
        try pane.waitFor(text: #""maxInFlight": 3"#)
        pane.type("mail.login email=second@example.com password=pw", then: "Enter")
        try pane.waitFor(text: #""created": true"#)
        pane.type("resources.read uri=mail://inbox", then: "Enter")
        let screen = try pane.waitFor("the inbox resource") { $0.contains(#""uri": "mail://inbox""#) }
        #expect(screen.contains(#"\"items\":[]"#), "the second account's inbox is empty: \(screen)")
        pane.type("quit", then: "Enter")
        try pane.waitForExit()
    }
}
