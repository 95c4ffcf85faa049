import CalendarDomain
import Jansson
import SwitchboardHost
import Testing

/// What a rule may hold and what a look-up of one of its occurrences answers (probe of calendar and
/// iCalendar, items 10 and 12): `bySetPosition` beside `byHour` or `byMinute` alone is a rule RFC 5545
/// allows; a look-up the work bound stops says so instead of calling an occurrence no occurrence.
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

    @Test("a recurrenceId the work bound keeps a look-up from reaching is refused saying so, not called no occurrence; one it reaches is looked up",
          arguments: CalendarBackend.allCases)
    func lookUpStoppedByTheBound(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2016-02-20T00:00:00Z")
        // Every minute of February 29th when it is a Monday (1904, 1932, 1960, ...): 1,440 candidates a day of February.
        let rule: JSONValue = ["frequency": "yearly", "byMonth": ["2"], "byMonthDay": [29], "byDay": [["day": "mo"]],
                               "byHour": .array((0...23).map { .integer(Int64($0)) }), "byMinute": .array((0...59).map { .integer(Int64($0)) }),
                               "count": 5000]
        let created = await harness.result("calendar.create", [
            "id": "h2", "title": "t", "start": "1900-01-01T00:00:00", "timeZone": "UTC", "recurrenceRules": [rule],
        ])
        #expect(created?["event"]?["id"] == "h2")
        let far = await harness.call("calendar.delete", ["id": "h2", "scope": "this", "recurrenceId": "1932-02-29T00:00:00"])
        #expect(far.error?["code"] == -32602)
        #expect(far.error?["data"]?["field"] == "recurrenceId")
        let message = far.error?["data"]?["expected"]?.stringValue ?? ""
        #expect(message.contains("passes so seldom") && !message.contains("the original start of an occurrence"), "\(message)")
        // Within the bound: an occurrence is one, and a time that is none is said to be none.
        let near = await harness.result("calendar.delete", ["id": "h2", "scope": "this", "recurrenceId": "1904-02-29T00:00:00"])
        #expect(near?["event"]?["recurrenceOverrides"]?["1904-02-29T00:00:00"] == ["excluded": true])
        let none = await harness.call("calendar.delete", ["id": "h2", "scope": "this", "recurrenceId": "1901-03-01T00:00:00"])
        #expect(none.error?["data"]?["expected"]?.stringValue?.hasPrefix("the original start of an occurrence") == true, "\(none.response.jsonText())")
    }
}
