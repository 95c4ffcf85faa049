import Jansson
import Testing

/// A test harness compares answers byte for byte: the same request on the same data gives the same
/// bytes from every process, whatever order Swift's per-process hash seed gives its dictionaries.
@Suite("The same request gives the same bytes in every process", .offCooperativePool)
struct BinaryDeterminismTests {
    typealias H = BinaryHarness

    @Test("two hosts on the demo data answer an agenda with many participants identically")
    func sameBytes() throws {
        let input = H.frame(H.request(1, "calendar.agenda", #"{"from":"2026-01-05","to":"2026-02-27","timeZone":"Europe/Berlin"}"#), .ndjson)
        let arguments = ["--backend", "memory", "--now", "2026-01-01T09:00:00Z"]
        let first = try H.run(arguments, input: input)
        let second = try H.run(arguments, input: input)
        // The range holds events with several participants and roles: objects whose order could differ.
        let answer = try JSONValue(parsing: first.stdout)
        let entries = answer["result"]?["days"]?.arrayValue?.flatMap { $0["events"]?.arrayValue ?? [] } ?? []
        #expect(entries.contains { ($0["participants"]?.objectValue?.count ?? 0) >= 3 })
        #expect(first.stdout == second.stdout)
    }
}
