import CalendarDomain
import Foundation
import Jansson
import SwitchboardCore
import Testing

/// iCalendar through libical: what switchboard exports imports back unchanged, a Thunderbird-style
/// file loads, re-importing updates rather than duplicates, and files are read only inside the roots.
@Suite("Calendar iCalendar import and export", .postgresStores)
struct CalendarICalendarTests {
    static let events: [JSONValue] = [
        ["id": "standup", "title": "Stand-up", "start": "2026-11-02T09:30:00", "timeZone": "Europe/Berlin", "duration": "PT15M",
         "locations": ["l1": ["name": "Room Spree"]],
         "participants": ["p1": ["name": "Ana Souza", "email": "ana@example.com", "roles": ["owner": true]],
                          "p2": ["name": "Jonas Becker", "email": "jonas@example.com", "roles": ["attendee": true]]],
         "recurrenceRules": [["frequency": "weekly", "byDay": [["day": "mo"], ["day": "we"]], "until": "2027-03-31T09:30:00"]],
         "recurrenceOverrides": ["2026-11-25T09:30:00": ["excluded": true],
                                 "2026-11-30T09:30:00": ["title": "Stand-up (moved)", "start": "2026-11-30T11:00:00"]]],
        ["id": "trip", "title": "Lisbon", "start": "2026-12-05T00:00:00", "showWithoutTime": true, "duration": "P3D"],
        ["id": "birthday", "title": "Mei's birthday", "start": "2026-06-14T00:00:00", "showWithoutTime": true, "duration": "P1D",
         "recurrenceRules": [["frequency": "yearly", "until": "2030-06-14T00:00:00"]]],
        ["id": "vitamins", "title": "Vitamins", "start": "2026-11-20T08:00:00", "duration": "PT0S",
         "recurrenceRules": [["frequency": "daily", "count": 5]]],
        ["id": "board", "title": "Board review", "start": "2026-11-27T15:00:00", "timeZone": "America/New_York", "duration": "PT3H",
         "description": "Quarterly numbers;\nbring slides, please", "recurrenceRules": [["frequency": "monthly", "interval": 3,
         "byDay": [["day": "fr", "nthOfPeriod": -1]]]]],
        ["id": "utc-call", "title": "Call", "start": "2026-11-24T23:30:00", "timeZone": "UTC", "duration": "P1DT1H"],
    ]

    @Test("what switchboard exports imports back event for event", arguments: CalendarBackend.allCases)
    func roundTrip(backend: CalendarBackend) async throws {
        let source = try await CalendarHarness(backend)
        for event in Self.events { _ = await source.result("calendar.create", event) }
        let exported = try #require(await source.result("calendar.export", nil))
        #expect(exported["count"] == 6)
        let ics = try #require(exported["ics"]?.stringValue)
        #expect(ics.contains("BEGIN:VTIMEZONE") && ics.contains("TZID:Europe/Berlin"))
        let target = try await CalendarHarness(backend.other)
        let imported = try #require(await target.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 6)
        #expect(imported["errors"] == [])
        for event in Self.events {
            let id = try #require(event["id"])
            let original = try #require(await source.result("calendar.get", ["id": id]))
            let loaded = try #require(await target.result("calendar.get", ["id": id]))
            #expect(try Self.event(loaded["event"]) == Self.event(original["event"]), "event \(id.jsonText())")
        }
        let again = try #require(await target.result("calendar.import", ["ics": .string(ics)]))
        #expect(again["unchanged"] == 6)
        #expect(again["created"] == 0)
    }

    /// The lines (from 1) of `text` that are `line`.
    static func lines(of text: String, holding line: String) -> [Int] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
            .filter { String(decoding: $0.element, as: UTF8.self).trimming { $0 == "\r" } == line }.map { $0.offset + 1 }
    }

    /// An answer's event as the model (JSON objects compare in order; the model's maps do not).
    static func event(_ value: JSONValue?) throws -> CalendarEvent {
        let jansson = (value ?? .null).makeJansson()
        return try withExtendedLifetime(jansson) { try JanssonDecoder().decode(CalendarEvent.self, from: jansson.view) }
    }

    /// Europe/Berlin as Thunderbird writes it into an .ics file (its last line without the final CRLF).
    static let berlinZone = """
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        BEGIN:DAYLIGHT\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        TZNAME:CEST\r
        DTSTART:19700329T020000\r
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r
        END:DAYLIGHT\r
        BEGIN:STANDARD\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        TZNAME:CET\r
        DTSTART:19701025T030000\r
        RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r
        END:STANDARD\r
        END:VTIMEZONE
        """

    static let thunderbird = """
        BEGIN:VCALENDAR\r
        PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN\r
        VERSION:2.0\r
        \(Self.berlinZone)\r
        BEGIN:VEVENT\r
        CREATED:20261101T120000Z\r
        DTSTAMP:20261101T120000Z\r
        UID:3f1c0a9e-tb-weekly\r
        SUMMARY:Weekly review\r
        RRULE:FREQ=WEEKLY;UNTIL=20261229T083000Z;BYDAY=TU\r
        EXDATE;TZID=Europe/Berlin:20261201T093000\r
        DTSTART;TZID=Europe/Berlin:20261103T093000\r
        DTEND;TZID=Europe/Berlin:20261103T103000\r
        ORGANIZER;CN=Ana Souza:mailto:ana@example.com\r
        ATTENDEE;CN=Jonas Becker;PARTSTAT=NEEDS-ACTION:mailto:jonas@example.com\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        DTSTAMP:20261101T120000Z\r
        UID:3f1c0a9e-tb-weekly\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261124T093000\r
        SUMMARY:Weekly review (afternoon)\r
        DTSTART;TZID=Europe/Berlin:20261124T140000\r
        DTEND;TZID=Europe/Berlin:20261124T150000\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        DTSTAMP:20261101T120000Z\r
        UID:tb-holiday\r
        SUMMARY:Christmas\r
        DTSTART;VALUE=DATE:20261225\r
        DTEND;VALUE=DATE:20261227\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        DTSTAMP:20261101T120000Z\r
        UID:tb-new-york\r
        SUMMARY:Call with New York\r
        DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20261123T090000\r
        DURATION:PT45M\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        DTSTAMP:20261101T120000Z\r
        SUMMARY:No uid\r
        DTSTART:20261123T090000Z\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        DTSTAMP:20261101T120000Z\r
        UID:tb-hourly\r
        SUMMARY:Every hour\r
        DTSTART:20261123T090000Z\r
        RRULE:FREQ=HOURLY\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test("a Thunderbird export loads: zones, exceptions, excluded dates, all-day dates; bad events are listed", arguments: CalendarBackend.allCases)
    func thunderbirdFile(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(Self.thunderbird)]))
        #expect(imported["created"] == 3)
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [4, 5])
        let begins = Self.lines(of: Self.thunderbird, holding: "BEGIN:VEVENT")
        #expect(errors.map { $0["line"] } == [.integer(Int64(begins[4])), .integer(Int64(begins[5]))])
        #expect(errors.last?["reason"]?.stringValue?.hasPrefix("its RRULE is not one switchboard repeats") == true)
        let weekly = try #require(await harness.result("calendar.get", ["id": "3f1c0a9e-tb-weekly"]))["event"]
        #expect(weekly?["timeZone"] == "Europe/Berlin")
        #expect(weekly?["duration"] == "PT1H")
        #expect(weekly?["recurrenceRules"]?.arrayValue?.first?["until"] == "2026-12-29T09:30:00")
        #expect(weekly?["participants"]?["p1"]?["roles"] == ["owner": true])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-12-31", "timeZone": "Europe/Berlin"]))
        var seen: [String: [String]] = [:]
        for day in agenda["days"]?.arrayValue ?? [] {
            for entry in day["events"]?.arrayValue ?? [] {
                seen[day["date"]?.stringValue ?? "", default: []].append((entry["title"]?.stringValue ?? "") + "@" + (entry["startsAt"]?.stringValue ?? "all-day"))
            }
        }
        #expect(seen["2026-11-23"] == ["Call with New York@2026-11-23T14:00:00Z"])
        #expect(seen["2026-11-24"] == ["Weekly review (afternoon)@2026-11-24T13:00:00Z"])
        #expect(seen["2026-12-01"] == nil)
        #expect(seen["2026-12-08"] == ["Weekly review@2026-12-08T08:30:00Z"])
        #expect(seen["2026-12-29"] == ["Weekly review@2026-12-29T08:30:00Z"])
        #expect(seen["2026-12-25"] == ["Christmas@all-day"] && seen["2026-12-26"] == ["Christmas@all-day"] && seen["2026-12-27"] == nil)
    }

    @Test("an imported event lasting longer than the longest duration is listed, not stored")
    func importedDurationIsBounded() async throws {
        let harness = try await CalendarHarness(.memory)
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:long\r\nDTSTAMP:20261101T120000Z\r\n"
            + "DTSTART:20261123T090000Z\r\nDURATION:P9999W\r\nSUMMARY:Forever\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 0)
        #expect(imported["errors"]?.arrayValue?.first?["reason"]?.stringValue?.hasPrefix("duration:") == true)
    }

    @Test("Outlook's Windows zone names become IANA zones: the event keeps its wall time and zone", arguments: CalendarBackend.allCases)
    func windowsZoneNames(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let zone = "BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\n"
            + "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\n"
            + "BEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n"
            + "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n"
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:Microsoft Exchange Server 2010\r\n" + zone
            + "BEGIN:VEVENT\r\nUID:outlook\r\nDTSTAMP:20261101T120000Z\r\nDTSTART;TZID=W. Europe Standard Time:20261124T093000\r\n"
            + "DTEND;TZID=W. Europe Standard Time:20261124T103000\r\nSUMMARY:Weekly sync\r\n"
            + "RRULE:FREQ=WEEKLY;COUNT=30\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        let event = try #require(await harness.result("calendar.get", ["id": "outlook"])?["event"])
        #expect(event["timeZone"] == "Europe/Berlin")
        #expect(event["start"] == "2026-11-24T09:30:00")
        // 09:30 in Berlin on both sides of the change to summer time: 08:30 UTC in November, 07:30 UTC in April.
        let day = try #require(await harness.result("calendar.day", ["date": "2027-04-06", "timeZone": "UTC"]))
        #expect(day["events"]?.arrayValue?.first?["startsAt"] == "2027-04-06T07:30:00Z")
    }

    @Test("a path outside the allowed folders is refused naming path; inside, the file loads")
    func confinedPath() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calendar-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("tb.ics")
        try Self.thunderbird.write(to: file, atomically: true, encoding: .utf8)
        let closed = try await CalendarHarness(.memory)
        #expect(await closed.invalidField("calendar.import", ["path": .string(file.path)]) == "path")
        let open = try await CalendarHarness(.memory, readRoots: ReadRoots(resolving: [folder.path]))
        let imported = try #require(await open.result("calendar.import", ["path": .string(file.path)]))
        #expect(imported["created"] == 3)
        #expect(await open.invalidField("calendar.import", ["path": "/etc/passwd"]) == "path")
        #expect(await open.invalidField("calendar.import", ["path": .string(file.path), "ics": ""]) == "")
    }
}
