import CalendarDomain
import Foundation
import Jansson
import Testing

/// The agenda against an independent oracle: scripts/calendar-oracle.py computes each case with
/// Python's zoneinfo and dateutil.rrule; here each event is created and its agenda asked through
/// JSON-RPC, on every backend. DST in Berlin, New York, Sydney, Lord Howe's half hours, Samoa's
/// skipped day, 29 February.
@Suite("Calendar agenda against the Python oracle", .postgresStores)
struct CalendarOracleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var now: String
        var event: JSONValue
        var agenda: JSONValue
        var expected: [JSONValue]
        var testDescription: String { name }
    }

    /// The cases and their expected agendas, from the oracle script; a failure to run it is a test failure.
    static let cases: [Case] = {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/calendar-oracle.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return [] }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let document = try? JSONValue(parsing: Array(data)) else { return [] }
        return (document["cases"]?.arrayValue ?? []).map { item in
            Case(name: item["name"]?.stringValue ?? "?", now: item["now"]?.stringValue ?? "", event: item["event"] ?? .null,
                 agenda: item["agenda"] ?? .null, expected: item["expected"]?["days"]?.arrayValue ?? [])
        }
    }()

    @Test("the oracle runs (python3 with dateutil: scripts/bootstrap installs python3-dateutil)")
    func oracleRuns() {
        #expect(Self.cases.count >= 20)
    }

    @Test("each case's agenda matches the oracle's, day by day", arguments: Self.cases, CalendarBackend.allCases)
    func matchesOracle(example: Case, backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: example.now)
        let created = try #require(await harness.result("calendar.create", example.event))
        #expect(created["created"] == true)
        let agenda = try #require(await harness.result("calendar.agenda", example.agenda))
        let days = agenda["days"]?.arrayValue ?? []
        #expect(days.count == example.expected.count)
        for (day, expected) in zip(days, example.expected) {
            #expect(day["date"] == expected["date"])
            #expect(day["lengthMinutes"] == expected["lengthMinutes"], "length of \(expected["date"]?.stringValue ?? "")")
            let got = (day["events"]?.arrayValue ?? []).map(Self.essentials)
            let want = (expected["events"]?.arrayValue ?? []).map(Self.essentials)
            #expect(got == want, "events of \(expected["date"]?.stringValue ?? "")")
        }
    }

    /// What the oracle computes of an entry: title, instants (or all-day start) and the continuation marks.
    static func essentials(_ entry: JSONValue) -> [String] {
        ["title", "start", "startsAt", "endsAt", "continuing", "endsAfterDay"].map { key in
            guard let value = entry[key] else { return "-" }
            // The start of a timed entry is the event's wall time, which the oracle does not report.
            if key == "start", entry["startsAt"] != nil { return "-" }
            return value.jsonText()
        }
    }
}
