import CalendarDomain
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// A file's own VTIMEZONE is expanded by libical all at once: one whose rules change the offset more
/// often than a real zone does (every minute, second, day, or many times a year) is refused before that
/// happens, and the events needing it are listed as errors; a real one is still used (issue 19, point 2).
@Suite("Calendar VTIMEZONE bounds", .postgresStores)
struct CalendarZoneDefinitionTests {
    /// A calendar whose zone "Custom" has the STANDARD and DAYLIGHT rules `standard` and `daylight`, an
    /// event in that zone, and one in Berlin.
    static func calendar(standard: String, daylight: String) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//switchboard tests//EN\r
        BEGIN:VTIMEZONE\r
        TZID:Custom\r
        BEGIN:STANDARD\r
        DTSTART:19701025T030000\r
        \(standard)\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        END:STANDARD\r
        BEGIN:DAYLIGHT\r
        DTSTART:19700329T020000\r
        \(daylight)\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        END:DAYLIGHT\r
        END:VTIMEZONE\r
        BEGIN:VEVENT\r
        UID:custom@example.com\r
        DTSTART;TZID=Custom:20260715T100000\r
        DURATION:PT1H\r
        SUMMARY:Custom\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:berlin@example.com\r
        DTSTART;TZID=Europe/Berlin:20260715T100000\r
        DURATION:PT1H\r
        SUMMARY:Berlin\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    @Test("a VTIMEZONE whose rules change the offset too often is refused promptly; its event is an error, the rest kept", arguments: [
        ("RRULE:FREQ=MINUTELY", "RRULE:FREQ=MINUTELY"),
        ("RRULE:FREQ=SECONDLY", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"),
        ("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "RRULE:FREQ=DAILY"),
        ("RRULE:FREQ=YEARLY;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12;BYDAY=SU", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"),
    ], CalendarBackend.allCases)
    func unboundedZoneIsRefused(rules: (String, String), backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(Self.calendar(standard: rules.0, daylight: rules.1))]))
        #expect(imported["created"] == 1)
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [0])
        #expect(errors.first?["reason"]?.stringValue?.contains("VTIMEZONE") == true)
        #expect(await harness.result("calendar.get", ["id": "berlin@example.com"])?["event"]?["title"] == "Berlin")
    }

    @Test("a VTIMEZONE with real yearly rules is used: its event is at the instant the rules say", arguments: CalendarBackend.allCases)
    func realZoneIsUsed(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Self.calendar(standard: "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", daylight: "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU")
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 2)
        #expect(imported["errors"] == [])
        // 10:00 at +02:00 in July: 08:00Z, kept in UTC.
        let event = try #require(await harness.result("calendar.get", ["id": "custom@example.com"])?["event"])
        #expect(event["start"] == "2026-07-15T08:00:00")
        #expect(event["timeZone"] == "UTC")
    }
}
