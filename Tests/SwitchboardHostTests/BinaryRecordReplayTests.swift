#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SchemaTesting
import Testing

/// Record and replay for harnesses (issue 10, point 7), against the built binary: `--record FILE` writes
/// every frame with a timestamp; `switchboard replay FILE` re-sends the inputs to a fresh host and exits
/// 0 when every answer matches, 1 with one line per difference.
@Suite("Record and replay, against the binary", .offCooperativePool)
struct BinaryRecordReplayTests {
    typealias H = BinaryHarness

    static let requests = [
        H.request(1, "inbox.list", #"{"limit":2}"#),
        H.request(2, "chat.send", #"{"roomId":"dm-u0-u1","text":"hello","clientMessageId":"c1"}"#),
        H.request(3, "feed.get", #"{"id":42}"#),
        H.request(4, "no.such"),
    ]

    /// Records a session of `requests` into `folder/session.jsonl` and returns the file's lines.
    static func record(in folder: ScratchFolder) throws -> [JSONValue] {
        let input = Array(requests.map { $0 + "\n" }.joined().utf8)
        let run = try H.run(["--backend", "memory", "--now", "2026-01-01T09:00:00Z", "--record", folder.path + "/session.jsonl"],
                            input: input, raw: true)
        #expect(run.termination == .exited(0))
        #expect(run.stdout.split(separator: "\n").count == 5, "four answers and chat.messageState on stdout: \(run.stdout)")
        let text = try #require(folder.read("session.jsonl"))
        return try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }

    @Test("--record writes a header with the flags, then each frame in and out with a timestamp; answers match their schemas")
    func recordsFrames() throws {
        let folder = try ScratchFolder("record")
        let lines = try Self.record(in: folder)
        let header = try #require(lines.first)
        #expect(header["switchboard"] == "recording")
        #expect(header["args"]?["now"] == "2026-01-01T09:00:00Z")
        #expect(header["args"]?["backend"] == "memory")
        #expect(header["volatile"] == [])
        let frames = lines.dropFirst()
        #expect(frames.filter { $0["dir"] == "in" }.count == 4)
        #expect(frames.filter { $0["dir"] == "out" }.count == 5)
        #expect(frames.allSatisfy { $0["t"]?.int64Value.map { $0 >= 0 } ?? false })
        let ledger = RequestLedger()
        for line in frames {
            let frame = try #require(line["frame"])
            if line["dir"] == "in" { ledger.recordOutgoing(frame) } else { DiscoveredSchemas.binary.expectValidAnswers(in: frame, ledger: ledger) }
        }
        let notification = frames.first { $0["frame"]?["method"] == "chat.messageState" }
        #expect(notification?["frame"]?["params"]?["state"] == "sent")
    }

    @Test("replaying an untouched recording: every answer matches, exit 0")
    func replayMatches() throws {
        let folder = try ScratchFolder("replay")
        _ = try Self.record(in: folder)
        let run = try H.run(["replay", folder.path + "/session.jsonl"], raw: true)
        #expect(run.termination == .exited(0), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout == "replay: 4 answers and 1 notifications compared, all match\n")
    }

    @Test("a recorded answer that differs is reported at its path and exits 1; marked volatile (header or --volatile), it passes")
    func replayDiffers() throws {
        let folder = try ScratchFolder("replay-diff")
        var lines = try Self.record(in: folder)
        guard let index = lines.firstIndex(where: { $0["frame"]?["id"] == 3 && $0["dir"] == "out" }),
              case .object(var line) = lines[index], case .object(var frame)? = line["frame"],
              case .object(var result)? = frame["result"] else {
            Issue.record("no answer to feed.get recorded")
            return
        }
        result["displayName"] = "a name from yesterday's build"
        frame["result"] = .object(result)
        line["frame"] = .object(frame)
        lines[index] = .object(line)
        folder.write(lines.map { $0.jsonText() }.joined(separator: "\n") + "\n", to: "changed.jsonl")

        let run = try H.run(["replay", folder.path + "/changed.jsonl"], raw: true)
        #expect(run.termination == .exited(1))
        #expect(run.stdout.hasPrefix(#"the answer to id 3 (feed.get) differs at result.displayName: recorded "a name from yesterday's build", replayed "#),
                "\(run.stdout)")
        #expect(run.stdout.hasSuffix("1 differ\n"))

        let flagged = try H.run(["replay", folder.path + "/changed.jsonl", "--volatile", "result.displayName"], raw: true)
        #expect(flagged.termination == .exited(0), "\(flagged.stdout)")

        guard case .object(var header) = lines[0] else { return }
        header["volatile"] = ["result.displayName"]
        lines[0] = .object(header)
        folder.write(lines.map { $0.jsonText() }.joined(separator: "\n") + "\n", to: "marked.jsonl")
        let marked = try H.run(["replay", folder.path + "/marked.jsonl"], raw: true)
        #expect(marked.termination == .exited(0), "\(marked.stdout)")
    }

    @Test("replay of a file that is not a recording says so on stderr and exits 1")
    func replayUnreadable() throws {
        let folder = try ScratchFolder("replay-bad")
        folder.write("not json\n", to: "bad.jsonl")
        let run = try H.run(["replay", folder.path + "/bad.jsonl"], raw: true)
        #expect(run.termination == .exited(1))
        #expect(run.stderr.contains("line 1 is not JSON"), "\(run.stderr)")
        let missing = try H.run(["replay", folder.path + "/none.jsonl"], raw: true)
        #expect(missing.termination == .exited(1))
        #expect(missing.stdout.isEmpty)
    }
}
