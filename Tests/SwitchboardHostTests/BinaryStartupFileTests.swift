#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// The files the operator names at start (issue 19, points 6 and 14), against the binary: a FIFO (or
/// anything but a regular file) is refused without waiting for a writer, and what a file holds never
/// reaches stderr or an answer, only where and what kind of error it is. No test opens a FIFO's other
/// end: before the fix each of these hung at start.
@Suite("Files named at start: FIFOs refused, contents never quoted", .offCooperativePool)
struct BinaryStartupFileTests {
    typealias H = BinaryHarness

    /// The first token of the "shadow" file (what jansson's error quotes) and a secret further in.
    static let firstToken = "topsecretword"
    static let secret = "SECRETHASH4242"
    static let shadow = "\(firstToken):$6$\(secret):19000:0:99999:7:::\n"

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try host.send(H.request(id, method, params))
        return try host.response(to: .integer(Int64(id))).response
    }

    /// Serves with `arguments`, checks it answers `host.ping`, returns the plugins it lists and, after
    /// the end of input, its stderr.
    static func serve(_ arguments: [String], configHome: String) throws -> (plugins: [JSONValue], stderr: String) {
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory"] + arguments, environment: ["XDG_CONFIG_HOME": configHome])
        #expect(try call(host, 1, "host.ping")["result"] == "pong")
        let plugins = try call(host, 2, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        return (plugins, host.stderrText)
    }

    @Test("a FIFO as --mcp-config: the host starts and answers; the file is refused as not a regular file")
    func fifoMCPConfig() throws {
        let folder = try ScratchFolder("fifo-config")
        let fifo = folder.path + "/mcp.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let (plugins, stderr) = try Self.serve(["--mcp-config", fifo], configHome: folder.path)
        #expect(plugins.isEmpty)
        #expect(stderr.contains("--mcp-config \(fifo): not a regular file"), "\(stderr)")
    }

    @Test("a FIFO as a plugin's plugin.json: the host starts and lists that plugin as invalid, not a regular file")
    func fifoManifest() throws {
        let folder = try ScratchFolder("fifo-manifest")
        mkdir(folder.path + "/plugins", 0o755)
        mkdir(folder.path + "/plugins/piped", 0o755)
        #expect(mkfifo(folder.path + "/plugins/piped/plugin.json", 0o600) == 0)
        let (plugins, _) = try Self.serve(["--plugins", folder.path + "/plugins"], configHome: folder.path)
        let piped = plugins.first { $0["name"] == "piped" }
        #expect(piped?["state"] == "invalid")
        #expect(piped?["lastError"]?.stringValue?.contains("not a regular file") == true, "\(plugins)")
    }

    @Test("a FIFO as replay's recording, or as --record: a clear error and exit 1, no wait for the other end",
          arguments: [["replay"], ["serve", "--backend", "memory", "--record"]])
    func fifoRecording(_ command: [String]) throws {
        let folder = try ScratchFolder("fifo-recording")
        let fifo = folder.path + "/session.jsonl"
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try H.run(command + [fifo], raw: true)
        #expect(run.termination == .exited(1), "\(run.stderr)")
        #expect(run.stderr.contains("the recording \(fifo): not a regular file"), "\(run.stderr)")
    }

    @Test("a /dev/null or folder as --mcp-config is refused by kind, and the host still answers")
    func notFiles() throws {
        let folder = try ScratchFolder("device-config")
        let (plugins, stderr) = try Self.serve(["--mcp-config", "/dev/null", "--mcp-config", folder.path], configHome: folder.path)
        #expect(plugins.isEmpty)
        #expect(stderr.contains("--mcp-config /dev/null: not a regular file"), "\(stderr)")
        #expect(stderr.contains("--mcp-config \(folder.path): a folder, not a file"), "\(stderr)")
    }

    @Test("a --mcp-config that is not JSON: the kind of error, line and column on stderr, none of its text")
    func mcpConfigNotQuoted() throws {
        let folder = try ScratchFolder("shadow-config")
        folder.write(Self.shadow, to: "shadow")
        folder.write(#"{"mcpServers": {"odd": {"type": "\#(Self.secret)", "command": "true"}}}"#, to: "typed.json")
        let (plugins, stderr) = try Self.serve(["--mcp-config", folder.path + "/shadow", "--mcp-config", folder.path + "/typed.json"],
                                               configHome: folder.path)
        #expect(stderr.contains("--mcp-config \(folder.path)/shadow: cannot be read as JSON: invalid syntax at line 1, column "), "\(stderr)")
        let odd = plugins.first { $0["name"] == "odd" }
        #expect(odd?["state"] == "invalid")
        for text in [stderr, JSONValue.array(plugins).jsonText()] {
            #expect(!text.contains(Self.firstToken) && !text.contains(Self.secret), "\(text)")
        }
    }

    @Test("a plugin.json that is not JSON: plugins.list and stderr give line and column, none of its text")
    func manifestNotQuoted() throws {
        let folder = try ScratchFolder("shadow-manifest")
        mkdir(folder.path + "/plugins", 0o755)
        mkdir(folder.path + "/plugins/leaky", 0o755)
        folder.write(Self.shadow, to: "plugins/leaky/plugin.json")
        let (plugins, stderr) = try Self.serve(["--plugins", folder.path + "/plugins"], configHome: folder.path)
        let leaky = plugins.first { $0["name"] == "leaky" }
        #expect(leaky?["lastError"]?.stringValue?.contains("cannot be read as JSON: invalid syntax at line 1, column ") == true, "\(plugins)")
        for text in [stderr, JSONValue.array(plugins).jsonText()] {
            #expect(!text.contains(Self.firstToken) && !text.contains(Self.secret), "\(text)")
        }
    }

    /// A recording's first line, the header, with `members`.
    static func header(_ members: String) -> String {
        #"{"switchboard":"recording","version":1,"#  + members + "}\n"
    }

    @Test("replay of a file that is not a recording, or whose header is not valid: what and where, none of its text",
          arguments: [
            (shadow, "/session.jsonl: line 1"),
            (header(#""args":{},"volatile":["\#(secret)[*"]"#), "/session.jsonl: line 1"),
            (header(#""args":{},"volatile":"\#(secret)""#), "/session.jsonl: line 1"),
            (header(#""args":{"simulate":"\#(secret)"}"#), "the recording's args: simulate is not one of"),
            (header(#""args":{"account":"\#(secret)"}"#), "the recording's args: --account takes"),
            (header(#""args":{"chatUser":"\#(secret)"}"#), "the recording's args: --chat-user takes"),
            (header(#""args":{"now":"\#(secret)"}"#), "the recording's args: --now takes"),
          ])
    func recordingNotQuoted(_ content: String, says expected: String) throws {
        let folder = try ScratchFolder("shadow-recording")
        folder.write(content, to: "session.jsonl")
        let run = try H.run(["replay", folder.path + "/session.jsonl"], raw: true)
        #expect(run.termination == .exited(1))
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(!run.stderr.contains(Self.firstToken) && !run.stderr.contains(Self.secret), "\(run.stderr)")
    }
}
