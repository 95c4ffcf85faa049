#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

// The built binary's command line (issue point 11): `call`, `methods`, `--help`, usage errors.

@Suite("The switchboard command line", .offCooperativePool)
struct CLITests {
    typealias H = BinaryHarness

    static func run(_ arguments: [String], environment: [String: String?] = [:]) throws -> BinaryHarness.Run {
        try H.run(arguments, environment: environment, raw: true)
    }

    /// The answers of a host started with `arguments` to a chat, a calendar and an inbox request.
    static func answers(_ arguments: [String]) throws -> [JSONValue] {
        let host = try SpawnedHost(arguments: arguments)
        try host.send([H.request(1, "chat.rooms"), H.request(2, "calendar.agenda", #"{"from":"2026-01-05","to":"2026-01-06"}"#),
                       H.request(3, "inbox.list", #"{"limit":3}"#)])
        // Answers come in the order they are ready, not the order asked.
        var answers: [Int64: JSONValue] = [:]
        while answers.count < 3 {
            let message = try host.nextMessage(within: H.answerTimeout)
            if let id = message["id"]?.int64Value { answers[id] = message }
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        return (1...3).map { answers[$0] ?? .null }
    }

    @Test("`switchboard --db F --now T --time-zone Z --chat-user U` (read without the parser) serves what `serve --db=F …` (the parser) serves")
    func quickServeReadsWhatTheParserReads() throws {
        let db = try H.temporaryFolder("quick-serve") + "/quick.sqlite"
        let options = [("db", db), ("now", "2026-01-05T09:00:00Z"), ("time-zone", "Asia/Tokyo"), ("chat-user", "u1"),
                       ("feed-items", "10"), ("mail-messages", "10")]
        let quick = try Self.answers(options.flatMap { ["--\($0.0)", $0.1] })
        let parsed = try Self.answers(["serve"] + options.map { "--\($0.0)=\($0.1)" })
        #expect(quick == parsed)
        // The options took effect: the agenda's zone, and chat as u1 rather than the default u0.
        #expect(quick[1]["result"]?["timeZone"] == "Asia/Tokyo")
        #expect(try Self.answers(["--db", db, "--now", "2026-01-05T09:00:00Z"])[0] != quick[0])
    }

    @Test("`switchboard call host.ping` prints \"pong\" and exits 0")
    func callPing() throws {
        let run = try Self.run(["call", "host.ping"])
        #expect(run.stdout == "\"pong\"\n")
        #expect(run.stderr.isEmpty)
        #expect(run.termination == .exited(0))
    }

    @Test("the host's zone is TZ as the C library reads it, not UTC in its place: a tz database name without a slash, or a name after a colon",
          arguments: [("EST5EDT", "EST5EDT"), (":Europe/Berlin", "Europe/Berlin")])
    func hostZoneFromTZ(tz: String, zone: String) throws {
        let run = try Self.run(["call", "calendar.day", #"{"date":"2026-07-01"}"#, "--backend", "memory"], environment: ["TZ": tz])
        #expect(run.termination == .exited(0))
        let day = try JSONValue(parsing: run.stdout)
        #expect(day["timeZone"] == .string(zone))
        #expect(day["lengthMinutes"] == 1440)
    }

    @Test("`switchboard call host.echo PARAMS` prints the params as pretty JSON")
    func callEcho() throws {
        let run = try Self.run(["call", "host.echo", #"{"a":[1,2],"b":{"c":"d"}}"#])
        #expect(run.termination == .exited(0))
        #expect(try JSONValue(parsing: run.stdout) == ["a": [1, 2], "b": ["c": "d"]])
        #expect(run.stdout.contains("\n  "), "pretty, indented: \(run.stdout)")
        let a = try #require(run.stdout.firstRange(of: #""a""#))
        let b = try #require(run.stdout.firstRange(of: #""b""#))
        #expect(a.lowerBound < b.lowerBound, "member order kept")
    }

    @Test("`switchboard call` prints a result laid out as jansson indents it, its tokens as the host wrote them")
    func callPrintsIndented() throws {
        let run = try Self.run(["call", "host.echo", #"{"a":[1,{"b":[]},{}],"c":"x, y: [z]","d":0.1,"é":null}"#])
        #expect(run.termination == .exited(0))
        #expect(run.stdout == """
            {
              "a": [
                1,
                {
                  "b": []
                },
                {}
              ],
              "c": "x, y: [z]",
              "d": 0.1,
              "é": null
            }

            """)
        let error = try Self.run(["call", "host.sleep", #"{"ms":-1}"#])
        #expect(error.termination == .exited(1))
        #expect(error.stderr.hasPrefix("{\n  \"code\": -32602,\n  \"message\": "), "\(error.stderr)")
    }

    @Test("`switchboard call no.such` prints the -32601 error JSON on stderr and exits 1 with nothing on stdout")
    func callUnknownMethod() throws {
        let run = try Self.run(["call", "no.such"])
        #expect(run.termination == .exited(1))
        #expect(run.stdout.isEmpty)
        let error = try JSONValue(parsing: run.stderr)
        #expect(error["code"] == -32601)
        #expect(error["data"]?["method"] == "no.such")
    }

    @Test("`switchboard call host.sleep '{\"ms\":\"x\"}'` prints -32602 naming the field on stderr and exits 1")
    func callInvalidParams() throws {
        let run = try Self.run(["call", "host.sleep", #"{"ms":"x"}"#])
        #expect(run.termination == .exited(1))
        #expect(run.stdout.isEmpty)
        let error = try JSONValue(parsing: run.stderr)
        #expect(error["code"] == -32602)
        #expect(error["data"]?["field"] == "ms")
    }

    @Test("an argument that is not UTF-8 (a Latin-1 byte from the shell) is refused, naming its position, not turned into U+FFFD")
    func argumentNotUTF8() throws {
        // The harness passes Swift strings; a shell's printf makes the byte.
        let host = try SpawnedHost(arguments: ["-c", #"exec "$0" call host.echo "$(printf '{"a":"caf\351"}')""#, BinaryHarness.binaryPath],
                                   executable: "/bin/sh", raw: true)
        host.closeInput()
        try host.readToEndOfOutput(within: 60_000)
        #expect(try host.waitForExit(within: 60_000) == .exited(64))
        #expect(host.stdoutBytes.isEmpty)
        #expect(host.stderrText.contains("argument 3 is not UTF-8"), "\(host.stderrText)")
        #expect(try Self.run(["call", "host.echo", #"{"a":"café"}"#]).termination == .exited(0), "UTF-8 is taken")
    }

    @Test("`switchboard call` with PARAMS that are not JSON fails and says so")
    func callInvalidJSON() throws {
        let run = try Self.run(["call", "host.echo", #"{"a":"#])
        guard case .exited(let code) = run.termination else {
            Issue.record("ended by \(run.termination)")
            return
        }
        #expect(code != 0)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("PARAMS") && run.stderr.contains("JSON"), "names the problem: \(run.stderr)")
    }

    @Test("`switchboard call` with PARAMS that are not JSON and hold a password: the error says where, not the text near it")
    func callInvalidJSONWithSecret() throws {
        let run = try Self.run(["call", "mail.login", #"{"email":"bob@example.com","password":"hunter2-SECRET\x"}"#])
        #expect(run.termination == .exited(64))
        #expect(run.stderr.contains("PARAMS is not valid JSON") && run.stderr.contains("line 1, column"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2"), "\(run.stderr)")
    }

    @Test("`switchboard call` with a lone surrogate escape in PARAMS says so, as a served request is told")
    func callLoneSurrogate() throws {
        let run = try Self.run(["call", "host.echo", #"{"a":"x\ud800"}"#])
        #expect(run.termination == .exited(64))
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(#"PARAMS holds a lone UTF-16 surrogate escape, \ud800 at byte offset 7: send the pair, or U+FFFD"#),
                "\(run.stderr)")
        #expect(try Self.run(["call", "host.echo", #"{"a":"\ud83d\ude00"}"#]).termination == .exited(0), "a pair is taken")
    }

    @Test("`switchboard call` stopped by SIGINT or SIGTERM: the call is cancelled and answers -32800 on stderr, the process exits 128 + the signal", arguments: [SIGINT, SIGTERM])
    func callInterrupted(signal: Int32) throws {
        let host = try SpawnedHost(arguments: ["call", "host.sleep", #"{"ms":600000,"steps":600,"_meta":{"progressToken":"p"}}"#], raw: true)
        try host.waitForStderr(containing: #""method":"$/progress""#)
        host.signal(signal)
        try host.readToEndOfOutput(within: H.answerTimeout)
        #expect(try host.waitForExit() == .exited(128 + signal))
        #expect(host.stderrText.contains("switchboard: signal \(signal): cancelling the call"), "\(host.stderrText)")
        #expect(host.stderrText.contains("-32800"), "\(host.stderrText)")
        #expect(host.stdoutBytes.isEmpty)
    }

    @Test("`switchboard call host.sleep` with a progress token prints progress on stderr and the result on stdout")
    func callWithProgress() throws {
        let run = try Self.run(["call", "host.sleep", #"{"ms":20,"steps":2,"_meta":{"progressToken":"p"}}"#])
        #expect(run.termination == .exited(0))
        #expect(try JSONValue(parsing: run.stdout) == ["slept": 20, "steps": 2])
        let notes = run.stderr.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
        #expect(notes.filter { $0["method"] == "$/progress" }.count == 2, "\(run.stderr)")
    }

    @Test("`switchboard methods` lists host.ping with its summary")
    func methodsList() throws {
        let run = try Self.run(["methods"])
        #expect(run.termination == .exited(0))
        let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("host.ping ") }
        #expect(line?.contains("Answers \"pong\"") == true, "\(run.stdout)")
        for name in ["host.echo", "host.methods", "host.sleep", "initialize", "shutdown", "rpc.discover"] {
            #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix(name + " ") }, "lists \(name)")
        }
    }

    @Test("`switchboard methods --json` prints a JSON array of {name, summary}")
    func methodsJSON() throws {
        let run = try Self.run(["methods", "--json"])
        #expect(run.termination == .exited(0))
        let list = try #require(try JSONValue(parsing: run.stdout).arrayValue)
        let ping = list.first { $0["name"] == "host.ping" }
        #expect(ping?["summary"]?.stringValue?.isEmpty == false)
        #expect(list.allSatisfy { $0["name"]?.stringValue != nil && $0["summary"]?.stringValue != nil })
    }

    @Test("`--help` exits 0 and describes the command", arguments: [
        ([], ["serve", "call", "methods"]),
        (["serve"], ["--framing", "--max-message-bytes", "--max-in-flight", "--drain-timeout", "--log-level"]),
        (["call"], ["METHOD", "PARAMS"]),
        (["methods"], ["--json"]),
    ] as [([String], [String])])
    func help(subcommand: [String], mentions: [String]) throws {
        let run = try Self.run(subcommand + ["--help"])
        #expect(run.termination == .exited(0))
        let usage = run.stdout.lowercased()
        #expect(usage.contains("usage: switchboard" + subcommand.map { " " + $0 }.joined()), "\(run.stdout)")
        for word in mentions {
            #expect(usage.contains(word.lowercased()), "--help of \(subcommand) mentions \(word): \(run.stdout)")
        }
    }

    @Test("`switchboard serve --max-in-flight 0` is a usage error")
    func badOption() throws {
        let run = try Self.run(["serve", "--max-in-flight", "0"])
        #expect(run.termination != .exited(0))
        if case .signaled = run.termination { Issue.record("crashed: \(run.termination)") }
        #expect(run.stderr.contains("--max-in-flight"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("an unknown --log-level is a usage error naming the level")
    func badLogLevel() throws {
        let run = try Self.run(["serve", "--log-level", "loud"])
        #expect(run.termination == .exited(64))
        #expect(run.stderr.contains("loud"))
    }

    @Test("an unknown --framing is a usage error")
    func badFraming() throws {
        let run = try Self.run(["--framing", "xml"])
        #expect(run.termination == .exited(64))
        #expect(run.stdout.isEmpty)
    }

    @Test("`--version` prints the version")
    func version() throws {
        let run = try Self.run(["--version"])
        #expect(run.termination == .exited(0))
        #expect(run.stdout.split(separator: ".").count == 3, "\(run.stdout)")
    }
}
