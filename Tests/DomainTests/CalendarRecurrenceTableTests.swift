import CalendarDomain
import Jansson
import Testing

/// The expansion against a reference: seeded random RRULEs of every shape switchboard takes (week
/// numbers, year days, negative month days, n-th weekdays, set positions over days and hours, WKST,
/// intervals, counts), their occurrences computed by python-dateutil and checked in
/// (CalendarRecurrenceTableRows.swift, from scripts/rrule-oracle-table.py). All are imported in one
/// iCalendar file and shown by one agenda, as a client would.
@Suite("Calendar recurrence against dateutil", .postgresStores)
struct CalendarRecurrenceTableTests {
    struct Row {
        var start: String
        var rrule: String
        /// Occurrences from 2026-11-28 through 2029-08-20.
        var count: Int
        /// All of them when 12 or fewer, else the first 8 and the last 4 (`20270127T123500`).
        var shown: [String]

        init(_ start: String, _ rrule: String, _ count: Int, _ shown: String) {
            self.start = start
            self.rrule = rrule
            self.count = count
            self.shown = shown.split(separator: " ").map(String.init)
        }
    }

    /// `2027-01-27T12:35:00` as `20270127T123500`.
    static func basic(_ local: String) -> String { local.filter { $0 != "-" && $0 != ":" } }

    @Test("every rule of the table shows the occurrences dateutil gives", arguments: CalendarBackend.allCases)
    func agreesWithDateutil(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2026-11-28T12:00:00Z")
        let events = Self.rows.enumerated().map { index, row in
            "BEGIN:VEVENT\r\nUID:r\(index)\r\nDTSTAMP:20261101T120000Z\r\nDTSTART:\(row.start)\r\nDURATION:PT1M\r\nSUMMARY:r\(index)\r\nRRULE:\(row.rrule)\r\nEND:VEVENT\r\n"
        }
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + events.joined() + "END:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["errors"] == [], "\(imported)")
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-28", "to": "2029-08-20", "timeZone": "UTC"]))
        #expect(agenda["truncated"] == nil)
        var shown: [String: [String]] = [:]
        for entry in (agenda["days"]?.arrayValue ?? []).flatMap({ $0["events"]?.arrayValue ?? [] }) where entry["continuing"] != true {
            if let id = entry["id"]?.stringValue, let start = entry["recurrenceId"]?.stringValue { shown[id, default: []].append(Self.basic(start)) }
        }
        var wrong = 0
        for (index, row) in Self.rows.enumerated() {
            let starts = shown["r\(index)"] ?? []
            let compared = starts.count <= 12 ? starts : Array(starts.prefix(8) + starts.suffix(4))
            if starts.count != row.count || compared != row.shown {
                wrong += 1
                Issue.record("DTSTART:\(row.start) RRULE:\(row.rrule): \(starts.count) occurrences, dateutil \(row.count); shown \(compared), dateutil \(row.shown)")
            }
        }
        #expect(wrong == 0)
    }
}
