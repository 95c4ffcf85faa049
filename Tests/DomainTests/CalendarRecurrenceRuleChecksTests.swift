import CalendarDomain
import Jansson
import SwitchboardHost
import Testing

/// What a rule may hold (probe of calendar and iCalendar, item 10): `bySetPosition` beside `byHour`
/// or `byMinute` alone is a rule RFC 5545 allows.
@Suite("Calendar recurrence rule checks", .postgresStores)
struct CalendarRecurrenceRuleChecksTests {
    static func hours(_ hours: Int64...) -> JSONValue { .array(hours.map { .integer($0) }) }

    @Test("bySetPosition beside byHour or byMinute alone is taken, by create and by import, and picks from the listed times",
          arguments: CalendarBackend.allCases)
    func setPositionBesideTimes(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2026-11-28T12:00:00Z")
        let created = await harness.result("calendar.create", [
            "id": "sp", "title": "t", "start": "2026-12-01T08:00:00", "timeZone": "UTC",
            "recurrenceRules": [["frequency": "daily", "byHour": Self.hours(8, 17), "bySetPosition": [1], "count": 3]],
        ])
        #expect(created?["event"]?["id"] == "sp")
        let minutes = await harness.result("calendar.create", [
            "id": "sm", "title": "t", "start": "2026-12-01T08:45:00", "timeZone": "UTC",
            "recurrenceRules": [["frequency": "weekly", "byMinute": [15, 45], "bySetPosition": [-1], "count": 2]],
        ])
        #expect(minutes?["event"]?["id"] == "sm")
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:si\r\nDTSTAMP:20261101T120000Z\r\n"
            + "DTSTART:20261201T170000Z\r\nDURATION:PT1H\r\nSUMMARY:si\r\nRRULE:FREQ=DAILY;BYHOUR=8,17;BYSETPOS=-1;COUNT=2\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["errors"] == [] && imported["created"] == 1, "\(imported)")
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-12-01", "to": "2026-12-31", "timeZone": "UTC"]))
        let entries = (agenda["days"]?.arrayValue ?? []).flatMap { $0["events"]?.arrayValue ?? [] }
        func starts(_ id: String) -> [String] { entries.filter { $0["id"]?.stringValue == id }.compactMap { $0["start"]?.stringValue } }
        #expect(starts("sp") == ["2026-12-01T08:00:00", "2026-12-02T08:00:00", "2026-12-03T08:00:00"])
        #expect(starts("sm") == ["2026-12-01T08:45:00", "2026-12-08T08:45:00"])
        #expect(starts("si") == ["2026-12-01T17:00:00", "2026-12-02T17:00:00"])
        // Alone, it is still refused.
        #expect(await harness.invalidField("calendar.create", [
            "title": "t", "start": "2026-12-01T08:00:00", "recurrenceRules": [["frequency": "daily", "bySetPosition": [1]]],
        ]) == "recurrenceRules[0].bySetPosition")
    }
}
