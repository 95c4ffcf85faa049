import Jansson
import Testing

/// `switchboard call METHOD key=value …` and the shell completion scripts (issue 10, point 6).
@Suite("call with key=value params, and completion scripts", .offCooperativePool)
struct BinaryCallShorthandTests {
    typealias H = BinaryHarness

    @Test("`call inbox.list limit=2 folder=Inbox` sends {limit: 2, folder: \"Inbox\"}")
    func shorthand() throws {
        let run = try H.run(["call", "--backend", "memory", "--now", "2026-01-01T09:00:00Z", "inbox.list", "limit=2", "folder=Inbox"], raw: true)
        #expect(run.termination == .exited(0), "\(run.stderr)")
        let result = try JSONValue(parsing: run.stdout)
        #expect(result["items"]?.arrayValue?.count == 2)
        let echo = try H.run(["call", "host.echo", "n=3", "on=true", "none=null", "name=Ada Lovelace", #"id="7""#], raw: true)
        #expect(try JSONValue(parsing: echo.stdout) == ["n": 3, "on": true, "none": nil, "name": "Ada Lovelace", "id": "7"])
    }

    @Test("a word without = after key=value words is a usage error naming it")
    func refusal() throws {
        let run = try H.run(["call", "host.echo", "a=1", "oops"], raw: true)
        #expect(run.termination == .exited(64))
        #expect(run.stderr.contains(#""oops" is not key=value"#), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("`--generate-completion-script bash` prints a bash completion naming the subcommands")
    func completionScript() throws {
        let run = try H.run(["--generate-completion-script", "bash"], raw: true)
        #expect(run.termination == .exited(0))
        #expect(run.stdout.contains("-F _switchboard switchboard"))
        #expect(run.stdout.contains("replay"))
    }
}
