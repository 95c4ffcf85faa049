#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// A parent that hands the host a non-blocking stdin (issue 19, point 15): `read` then fails with
/// `EAGAIN` whenever no input waits. The host must wait for input (poll) rather than call `read` again
/// at once, which kept a core busy for as long as the client was quiet.
@Suite("A non-blocking stdin, against the binary", .offCooperativePool)
struct BinaryNonBlockingInputTests {
    typealias H = BinaryHarness

    /// The scheduler state (`R`, `S`, …) of each of `pid`'s threads, from /proc.
    static func threadStates(_ pid: pid_t) -> [Character] {
        H.threadIDs(of: pid).compactMap { thread in
            // "tid (comm) S …": the state follows the command name's closing parenthesis.
            guard let stat = ScratchFolder.contents(of: "/proc/\(pid)/task/\(thread)/stat"),
                  let close = stat.lastIndex(of: ")") else { return nil }
            return stat[stat.index(after: close)...].first { !$0.isWhitespace }
        }
    }

    /// Looks at the host's threads until none is runnable: all wait (the input thread for input).
    /// A thread spinning on `EAGAIN` is always `R` (running or waiting for a core), so a spinning host
    /// never gets there and the harness's hang guard fails it.
    static func waitUntilAllThreadsSleep(_ host: SpawnedHost) throws {
        let deadline = H.nowMilliseconds() + H.answerTimeout
        var last: [Character] = []
        while true {
            last = threadStates(host.pid)
            if !last.isEmpty, !last.contains("R") { return }
            if H.nowMilliseconds() > deadline {
                throw H.Failure("a thread of the host never stopped running while it waited for input (states \(String(last)))")
            }
            usleep(10_000)  // the interval between two looks at /proc, not a wait for the host
        }
    }

    @Test("requests are answered, and while no input waits no thread runs: the input thread waits instead of spinning on EAGAIN")
    func waitsForInput() throws {
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory"], nonBlockingInput: true)
        for id in 1...3 {
            try host.send(H.request(id, "host.ping"))
            #expect(try host.response(to: .integer(Int64(id))).response["result"] == "pong")
            try Self.waitUntilAllThreadsSleep(host)
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
