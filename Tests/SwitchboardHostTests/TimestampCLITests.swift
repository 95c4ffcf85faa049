import Jansson
import Testing

/// `--now` parsing, against the binary (issue 6, point 1).
@Suite("Timestamps on the command line", .offCooperativePool)
struct TimestampCLITests {
    @Test("`call --now 2026-01-01T09:00:00.123456Z inbox.list` answers (it died with SIGILL)")
    func sixDigitFraction() throws {
        let run = try BinaryHarness.run(["call", "--backend", "memory", "--now", "2026-01-01T09:00:00.123456Z", "inbox.list"], raw: true)
        #expect(run.termination == .exited(0), "\(run.stderr)")
        #expect(try JSONValue(parsing: run.stdout)["items"]?.arrayValue?.isEmpty == false)
    }

    @Test("`--now` with a bad offset is a usage error, not a crash")
    func badOffset() throws {
        let run = try BinaryHarness.run(["call", "--backend", "memory", "--now", "2026-01-01T09:00:00+99:99", "host.ping"], raw: true)
        #expect(run.termination == .exited(64), "\(run.stderr)")
        #expect(run.stderr.contains("--now"))
    }
}
