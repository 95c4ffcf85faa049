#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A password given to `mail.login` appears in no log: not on stderr at any level (trace included),
/// not in a `--record` file, whether the login succeeds or is refused.
@Suite("Secrets stay out of logs, against the binary", .offCooperativePool)
struct BinarySecretLogTests {
    typealias H = BinaryHarness

    static let password = "hunter2-PASSWORD-MARKER"
    /// Short enough for jansson to quote it in a parse error.
    static let shortPassword = "Hunter2sec"

    /// Logins that succeed and that fail on the email, on the password or on a member, all with the password.
    static let logins: [String] = [
        #"{"email":"ann@example.com","password":"\#(password)"}"#,
        #"{"email":"not an address","password":"\#(password)"}"#,
        #"{"email":"ann@example.com","password":"\#(password)\u0000"}"#,
        #"{"email":"ann@example.com","password":"\#(password)\#(String(repeating: "x", count: 1_000))"}"#,
        #"{"email":"ann@example.com","password":"\#(password)","remember":true}"#,
        #"{"email":"ann@example.com","password":["\#(password)"]}"#,
    ]

    @Test("mail.login's password is on no stderr line at any level, nor in the --record file", arguments: ["trace", "debug", "info"])
    func passwordNeverLogged(_ level: String) throws {
        let folder = try ScratchFolder("secret-log")
        let record = folder.path + "/session.jsonl"
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory", "--log-level", level, "--record", record])
        try host.send(Self.logins.enumerated().map { H.request($0.offset, "mail.login", $0.element) })
        let answers = try host.answers(to: Self.logins.indices)
        for offset in Self.logins.indices {
            let answer = answers[offset] ?? .null
            #expect(offset == 0 ? answer["result"] != nil : H.errorCode(answer) == -32602, "\(answer)")
        }
        // A batch and a login that is not even JSON go the same way.
        try host.send("[" + H.request(10, "mail.login", Self.logins[0]) + "]")
        _ = try host.nextMessage()
        try host.write(#"{"jsonrpc":"2.0","id":11,"method":"mail.login","params":{"password":"\#(Self.password)""# + "\n")
        #expect(H.errorCode(try host.nextMessage()) == -32700)
        // Parse errors that jansson explains by quoting the token they stopped in (up to 20 bytes):
        // here, a short password.
        for broken in [#""password":"\#(Self.shortPassword)\q"}}"#, #""password":"\#(Self.shortPassword)"#,
                       #""pass\u0077ord":"\#(Self.shortPassword)\q"}}"#] {
            try host.write(#"{"jsonrpc":"2.0","id":12,"method":"mail.login","params":{"email":"a@b.example","# + broken + "\n")
            let answer = try host.nextMessage()
            #expect(H.errorCode(answer) == -32700)
            #expect(!answer.jsonText().contains(Self.shortPassword), "\(answer.jsonText())")
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(!host.stderrText.contains(Self.password), "\(host.stderrText)")
        let recorded = try #require(folder.read("session.jsonl"))
        #expect(recorded.contains("mail.login"), "the recording holds the logins")
        #expect(!recorded.contains(Self.password), "\(recorded)")
        #expect(!recorded.contains(Self.shortPassword), "\(recorded)")
    }

    @Test("call mail.login at trace level prints the answer, and the password on no stderr line")
    func passwordNeverLoggedByCall() throws {
        let run = try H.run(["call", "mail.login", Self.logins[0], "--backend", "memory", "--log-level", "trace"], raw: true)
        #expect(run.termination == .exited(0), "\(run.stderr)")
        #expect(!run.stderr.contains(Self.password))
        #expect(!run.stdout.contains(Self.password))
    }

    @Test("the prompt's history keeps a mail.login typed as key=value words, as JSON, or unreadable, without its password")
    func passwordNotInPromptHistory() throws {
        let state = try ScratchFolder("secret-history")
        let pane = try TmuxPane(arguments: BinaryPromptTests.fixed, environment: ["XDG_STATE_HOME": state.path])
        try pane.waitFor(text: BinaryPromptTests.banner)
        // Each line, and what shows once it is answered: two logins, then the reasons of two unreadable lines.
        let lines: [(String, (String) -> Bool)] = [
            ("mail.login email=ann@example.com password=\(Self.password)", { $0.ranges(of: #""created": "#).count == 1 }),
            (#"mail.login {"email": "ann@example.com", "password": "\#(Self.password)"}"#, { $0.ranges(of: #""created": "#).count == 2 }),
            (#"mail.login {"email": "ann@example.com", "password": "\#(Self.password)""#, { $0.contains("params are neither JSON nor key=value words") }),
            ("mail.login password=\(Self.password) password=again", { $0.contains(#""password" is given twice"#) }),
        ]
        for (index, (line, answered)) in lines.enumerated() {
            try BinaryPromptTests.waitForEmptyPrompt(pane)
            pane.type(line, then: "Enter")
            try pane.waitFor("the answer to line \(index + 1)", answered)
        }
        try BinaryPromptTests.waitForEmptyPrompt(pane)
        pane.type("quit", then: "Enter")
        try pane.waitForExit()
        let history = try #require(state.read("switchboard/history"))
        #expect(history.ranges(of: "mail.login").count == 4, "every line is kept: \(history)")
        #expect(history.contains("[redacted]"), "\(history)")
        #expect(!history.contains(Self.password), "\(history)")
    }
}
