#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SchemaTesting
import Testing

/// MCP software nobody here wrote, from PyPI at the versions scripts/mcp-real-venv pins, against the built
/// binary: the reference servers `mcp-server-time` and `mcp-server-git` as plugins from one `mcpServers` file,
/// and FastMCP's `Client` against the MCP face in both of its connect modes.
@Suite("Real MCP software at pinned versions (binary)", .serialized, .offCooperativePool)
struct RealMCPSoftwareTests {
    typealias H = BinaryHarness

    /// The python of the venv scripts/mcp-real-venv makes: `$SWITCHBOARD_MCP_REAL_PYTHON` (set by scripts/test),
    /// else that venv when it is there.
    static let python: String? = {
        if let given = getenv("SWITCHBOARD_MCP_REAL_PYTHON") { return String(cString: given) }
        let venv = PluginShippedTests.repository + "/.build/mcp-real-venv/bin/python"
        return access(venv, X_OK) == 0 ? venv : nil
    }()

    /// A start under a loaded machine's Python imports: only a hang guard.
    static let startGuard = 120_000

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try host.send(H.request(id, method, params))
        return try host.response(to: .integer(Int64(id)), within: startGuard).response
    }

    @Test("mcp-server-time and mcp-server-git from one mcpServers file: good and bad params, a temporary repository, a plugin killed mid-call and started again",
          .enabled(if: python != nil, "run scripts/mcp-real-venv (scripts/test does) to install the pinned servers"))
    func referenceServersAsPlugins() throws {
        let bin = try #require(Self.python.map { String($0[..<($0.lastIndex(of: "/") ?? $0.endIndex)]) })
        let folder = try H.temporaryFolder("real-mcp")
        let repository = folder + "/repository"
        try Self.git(["init", "-q", repository])
        try Self.git(["-C", repository, "config", "user.name", "Switchboard Test"])
        try Self.git(["-C", repository, "config", "user.email", "test@example.com"])
        try PluginShippedTests.write("one\n", to: repository + "/a.txt", mode: 0o644)
        let config = folder + "/mcp.json"
        try PluginShippedTests.write(#"""
            {"mcpServers": {"time": {"command": "\#(bin)/mcp-server-time", "args": ["--local-timezone", "Etc/UTC"]},
                            "git": {"command": "\#(bin)/mcp-server-git", "args": ["--repository", "\#(repository)"]}}}
            """#, to: config, mode: 0o600)
        // Beside the repository, not in it: the git server's sandbox (the --mcp-config defaults: read-write for
        // the paths in its args) keeps git and what it runs from reading it.
        let secret = folder + "/secret.txt"
        try PluginShippedTests.write("SECRET\n", to: secret, mode: 0o600)
        try PluginShippedTests.write("#!/bin/sh\necho ran > .git/hook-ran\ncat '\(secret)' > .git/leaked 2>/dev/null\nexit 0\n",
                                     to: repository + "/.git/hooks/pre-commit", mode: 0o755)
        let host = try SpawnedHost(arguments: ["serve", "--mcp-config", config, "--backend", "memory", "--log-level", "error",
                                               "--plugin-wait", "\(Self.startGuard)"])
        var answers: [(method: String, response: JSONValue)] = []
        func answer(_ id: Int, _ method: String, _ params: String) throws -> JSONValue {
            let response = try Self.call(host, id, method, params)
            answers.append((method, response))
            return response
        }

        // mcp-server-time: a good timezone, a bad one (the tool's own refusal), a missing and a mistyped one
        // (the host checks the tool's inputSchema first); convert_time between zones without daylight saving.
        let now = try #require(try answer(1, "time.get_current_time", #"{"timezone":"Europe/Berlin"}"#)["result"])
        #expect(now["timezone"] == "Europe/Berlin" && now["datetime"]?.stringValue?.isEmpty == false && now["is_dst"]?.boolValue != nil, "\(now)")
        let unknownZone = try #require(try answer(2, "time.get_current_time", #"{"timezone":"Nowhere/Else"}"#)["error"])
        #expect(unknownZone["code"] == -32071 && unknownZone["data"]?["reason"] == "toolError" && unknownZone["data"]?["plugin"] == "time")
        #expect(unknownZone["message"]?.stringValue?.contains("Nowhere/Else") == true, "\(unknownZone)")
        #expect(try answer(3, "time.get_current_time", "{}")["error"]?["data"]?["field"] == "timezone")
        let mistyped = try answer(4, "time.get_current_time", #"{"timezone":5}"#)["error"]
        #expect(mistyped?["code"] == -32602 && mistyped?["data"]?["field"] == "timezone")
        let converted = try answer(5, "time.convert_time", #"{"source_timezone":"Asia/Tokyo","time":"12:00","target_timezone":"Asia/Kolkata"}"#)["result"]
        #expect(converted?["target"]?["datetime"]?.stringValue?.hasSuffix("T08:30:00+05:30") == true, "\(String(describing: converted))")
        #expect(converted?["time_difference"] == "-3.5h")
        #expect(try answer(6, "time.convert_time", #"{"source_timezone":"Asia/Tokyo","time":"25:99","target_timezone":"Asia/Kolkata"}"#)["error"]?["code"] == -32071)

        // mcp-server-git on the temporary repository: status, a first commit through git_add and git_commit, the log.
        let status = try answer(10, "git.git_status", #"{"repo_path":"\#(repository)"}"#)
        #expect(Self.text(status).contains("a.txt"), "\(status)")
        #expect(Self.text(try answer(11, "git.git_add", #"{"repo_path":"\#(repository)","files":["a.txt"]}"#)).contains("staged"))
        #expect(Self.text(try answer(12, "git.git_commit", #"{"repo_path":"\#(repository)","message":"first"}"#)).contains("committed"))
        #expect(Self.text(try answer(13, "git.git_log", #"{"repo_path":"\#(repository)"}"#)).contains("Message: first"))
        // The commit's hook ran in the plugin's sandbox: it wrote in the repository but could not read the secret.
        #expect(try RegularFileText.read(repository + "/.git/hook-ran") == "ran\n")
        #expect(try RegularFileText.read(repository + "/.git/leaked") == "", "git's hook read a file outside its repository")
        let notRepository = try #require(try answer(14, "git.git_status", #"{"repo_path":"\#(folder)"}"#)["error"])
        #expect(notRepository["code"] == -32071 && notRepository["data"]?["plugin"] == "git", "\(notRepository)")
        #expect(try answer(15, "git.git_log", #"{"repo_path":"\#(repository)","max_count":"x"}"#)["error"]?["data"]?["field"] == "max_count")

        // Every answer in the shapes rpc.discover gives the plugins' tools (outputSchema where a tool has one).
        let schemas = try AnswerSchemas(openRPC: try Self.call(host, 20, "rpc.discover")["result"] ?? .null)
        #expect(schemas.resultSchemas["time.get_current_time"]?["required"] != nil)
        for (method, response) in answers { #expect(schemas.problems(in: response, answering: method) == [], "\(method)") }
        let items = try Self.call(host, 21, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        #expect(Set(items.compactMap { $0["server"]?["name"]?.stringValue }) == ["mcp-time", "mcp-git"], "\(items)")
        #expect(items.allSatisfy { $0["version"]?.stringValue?.isEmpty == false && $0["state"] == "running" })
        let gitSandbox = items.first { $0["name"] == "git" }?["sandbox"]
        #expect(gitSandbox?["enforced"] == true && gitSandbox?["write"]?.arrayValue?.contains(.string(repository)) == true, "\(String(describing: gitSandbox))")
        #expect(gitSandbox?["read"]?.arrayValue?.contains { $0.stringValue?.hasSuffix("mcp-real-venv") == true } == true, "the venv the command lives in")

        // Killed mid-call: a pre-commit hook says on one FIFO that the commit is under way and holds it on
        // another, so git_commit waits inside mcp-server-git while the test kills it.
        let started = repository + "/.git/started", gate = repository + "/.git/gate"
        #expect(mkfifo(started, 0o600) == 0 && mkfifo(gate, 0o600) == 0)
        // Read-write opens never block; the hook's own opens then find their other end.
        let startedFD = open(started, O_RDWR)
        var gateFD = open(gate, O_RDWR)
        defer {
            close(startedFD)
            if gateFD >= 0 { close(gateFD) }
        }
        try PluginShippedTests.write("#!/bin/sh\necho started > '\(started)'\nread -r line < '\(gate)'\n",
                                     to: repository + "/.git/hooks/pre-commit", mode: 0o755)
        try PluginShippedTests.write("two\n", to: repository + "/b.txt", mode: 0o644)
        #expect(Self.text(try answer(30, "git.git_add", #"{"repo_path":"\#(repository)","files":["b.txt"]}"#)).contains("staged"))
        try host.send(H.request(31, "git.git_commit", #"{"repo_path":"\#(repository)","message":"second"}"#))
        try Self.awaitLine(on: startedFD)
        let git = try #require(try Self.call(host, 32, "plugins.list")["result"]?["items"]?.arrayValue?.first { $0["name"] == "git" })
        let pid = try #require(git["pid"]?.int64Value)
        #expect(kill(pid_t(pid), SIGKILL) == 0)
        let killed = try #require(try host.response(to: 31, within: Self.startGuard).response["error"])
        #expect(killed["code"] == -32070 && killed["data"]?["reason"] == "crashed" && killed["data"]?["plugin"] == "git", "\(killed)")
        close(gateFD)
        gateFD = -1

        // The next call starts it again; the commit it was killed in did not happen.
        let log = Self.text(try answer(33, "git.git_log", #"{"repo_path":"\#(repository)"}"#))
        #expect(log.contains("Message: first") && !log.contains("Message: second"), "\(log)")
        let again = try #require(try Self.call(host, 34, "plugins.list")["result"]?["items"]?.arrayValue?.first { $0["name"] == "git" })
        #expect(again["state"] == "running" && again["restarts"] == 1 && again["pid"] != git["pid"], "\(again)")
    }

    @Test("FastMCP's Client drives the MCP face: every tool on one page, inbox.list, a resource read and subscribed and its update after a write, a slow call cancelled",
          .enabled(if: python != nil, "run scripts/mcp-real-venv (scripts/test does) to install fastmcp"),
          arguments: [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
    func fastMCPClient(mode: String, revision: String) throws {
        let python = try #require(Self.python)
        let script = PluginShippedTests.repository + "/Tests/SwitchboardHostTests/Fixtures/mcp-client/client_fastmcp.py"
        let client = try SpawnedHost(arguments: [script, mode, H.binaryPath] + MCPServerBinaryTests.memory, executable: python, raw: true)
        client.closeInput()
        try client.readToEndOfOutput(within: Self.startGuard + 60_000)
        #expect(try client.waitForExit() == .exited(0), "\(client.stderrText)")
        let seen = try JSONValue(parsing: String(try #require(client.stdoutText.split(separator: "\n").last)))
        #expect(seen["protocolVersion"] == .string(revision))
        #expect(seen["nextCursor"] == .null && (seen["tools"]?.int64Value ?? 0) > 40, "every tool on the first page")
        #expect(seen["allTools"] == seen["tools"])
        #expect(seen["inbox"] == 2 && seen["toolError"] == "limit")
        #expect(seen["updated"] == "mail://inbox")
        #expect(seen["cancelled"] == -32800 && seen["afterCancel"] == "\"pong\"")
    }

    /// The first text block of a plugin tool's `{content}` result, or "" for anything else.
    static func text(_ response: JSONValue) -> String {
        response["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
    }

    /// Runs git (from `PATH`, as the plugin finds it) and expects it to succeed.
    static func git(_ arguments: [String]) throws {
        let run = try SpawnedHost(arguments: arguments, executable: try Self.onPath("git"), raw: true)
        run.closeInput()
        try run.readToEndOfOutput()
        let termination = try run.waitForExit()
        guard termination == .exited(0) else { throw H.Failure("git \(arguments.joined(separator: " ")): \(termination) \(run.stderrText)") }
    }

    static func onPath(_ name: String) throws -> String {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where access("\(folder)/\(name)", X_OK) == 0 { return "\(folder)/\(name)" }
        throw H.Failure("\(name) is not on PATH")
    }

    /// Waits until a line arrives on `fd` (a FIFO the test holds open for reading and writing).
    static func awaitLine(on fd: Int32) throws {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = H.nowMilliseconds() + startGuard
        while true {
            let ready = poll(&poller, 1, Int32(max(0, deadline - H.nowMilliseconds())))
            if ready > 0 { break }
            guard ready < 0, errno == EINTR else { throw H.Failure("nothing arrived on the FIFO") }
        }
        var bytes = [UInt8](repeating: 0, count: 64)
        guard read(fd, &bytes, bytes.count) > 0 else { throw H.Failure("the FIFO read failed") }
    }
}
