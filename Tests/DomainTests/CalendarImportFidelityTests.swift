import CalendarDomain
import Foundation
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// What an import takes otherwise than the file says is said, and what RFC 5545 allows is taken: a fold
/// inside a character, a cancelled occurrence, RANGE and EXRULE, an occurrence changed twice, a
/// RECURRENCE-ID of another value type, a VEVENT nested where none belongs, unknown escapes, an
/// export's own all-day end, a VTIMEZONE that is no tz database zone (probe of calendar import).
@Suite("Calendar iCalendar import fidelity", .postgresStores)
struct CalendarImportFidelityTests {
    typealias Problems = CalendarImportProblemsTests

    /// A VEVENT's lines with the given ones in order (no defaults).
    static func lines(_ lines: String...) -> String {
        lines.map { $0 + "\r\n" }.joined()
    }

    /// `harness`'s answer to importing `ics`.
    static func importing(_ ics: String, into harness: CalendarHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        try #require(await harness.result("calendar.import", ["ics": .string(ics)], sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    }

    /// The reasons of an import's errors, by VEVENT index.
    static func reasons(_ imported: JSONValue) -> [Int64: String] {
        var result: [Int64: String] = [:]
        for error in imported["errors"]?.arrayValue ?? [] {
            if case .integer(let index)? = error["index"] { result[index] = error["reason"]?.stringValue ?? "" }
        }
        return result
    }

    @Test("a fold inside a UTF-8 character (RFC 5545 §3.1 allows one anywhere) imports from a file; bytes that are no UTF-8 after unfolding are still refused")
    func foldInsideCharacter() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calendar-fold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let harness = try await CalendarHarness(.memory, readRoots: ReadRoots(resolving: [folder.path]))
        let head = Array("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:f2\r\nDTSTART:20261201T090000Z\r\nSUMMARY:caf".utf8)
        // é split once, 😀 (F0 9F 98 80) split twice, the second fold with LF alone and a tab.
        let folded: [UInt8] = [0xC3, 0x0D, 0x0A, 0x20, 0xA9, 0x20, 0xF0, 0x9F, 0x0D, 0x0A, 0x20, 0x98, 0x0A, 0x09, 0x80]
        let tail = Array("\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:late\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        let file = folder.appendingPathComponent("fold.ics")
        try Data(head + folded + tail).write(to: file)
        let imported = try #require(await harness.result("calendar.import", ["path": .string(file.path)]))
        #expect(imported["created"] == 1, "\(imported)")
        // Lines are counted as the file has them: the second VEVENT (no DTSTART) begins on line 11.
        #expect(imported["errors"]?.arrayValue?.map { $0["line"] } == [11], "\(imported)")
        #expect(await harness.result("calendar.get", ["id": "f2"])?["event"]?["title"] == "café 😀")

        try Data(head + [0xC3, 0x0D, 0x0A, 0x20, 0x41] + tail).write(to: file)
        #expect(await harness.invalidField("calendar.import", ["path": .string(file.path)]) == "path")
    }

    @Test("RANGE=THISANDFUTURE is taken for its occurrence only, and the import says so", arguments: CalendarBackend.allCases)
    func thisAndFuture(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Problems.calendar([
            Self.lines("UID:tf", "DTSTART;TZID=Europe/Berlin:20261201T090000", "SUMMARY:base", "RRULE:FREQ=DAILY;COUNT=5"),
            Self.lines("UID:tf", "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20261203T090000",
                       "DTSTART;TZID=Europe/Berlin:20261203T150000", "SUMMARY:moved"),
        ])
        let imported = try await Self.importing(ics, into: harness)
        #expect(imported["created"] == 1)
        #expect(Self.reasons(imported) == [1: "its RECURRENCE-ID has RANGE=THISANDFUTURE, which is taken for this occurrence only; the later ones are not changed"],
                "\(imported)")
        let overrides = await harness.result("calendar.get", ["id": "tf"])?["event"]?["recurrenceOverrides"]
        #expect(overrides?.objectValue?.count == 1, "\(overrides ?? .null)")
        #expect(overrides?["2026-12-03T09:00:00"]?["title"] == "moved" && overrides?["2026-12-03T09:00:00"]?["start"] == "2026-12-03T15:00:00",
                "\(overrides ?? .null)")
    }

    @Test("STATUS:CANCELLED on an occurrence excludes it; on an event, the event and its occurrences are not imported and the import says so",
          arguments: CalendarBackend.allCases)
    func cancelled(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Problems.calendar([
            Self.lines("UID:series", "DTSTART;TZID=Europe/Berlin:20261201T110000", "DURATION:PT1H", "SUMMARY:s", "RRULE:FREQ=DAILY;COUNT=5"),
            // As Exchange and CalDAV servers write a cancelled instance: the same start, STATUS:CANCELLED.
            Self.lines("UID:series", "RECURRENCE-ID;TZID=Europe/Berlin:20261203T110000", "DTSTART;TZID=Europe/Berlin:20261203T110000",
                       "DURATION:PT1H", "SUMMARY:s", "STATUS:CANCELLED"),
            Self.lines("UID:called-off", "DTSTART:20261201T090000Z", "SUMMARY:c", "STATUS:CANCELLED", "RRULE:FREQ=DAILY;COUNT=3"),
            Self.lines("UID:called-off", "RECURRENCE-ID:20261202T090000Z", "DTSTART:20261202T100000Z", "SUMMARY:c"),
            Self.lines("UID:on", "DTSTART:20261201T090000Z", "SUMMARY:on", "STATUS:CONFIRMED"),
        ])
        let imported = try await Self.importing(ics, into: harness)
        #expect(imported["created"] == 2, "\(imported)")
        #expect(Self.reasons(imported) == [2: "the event is cancelled (STATUS:CANCELLED); it is not imported",
                                           3: "its recurring event is cancelled (STATUS:CANCELLED); the occurrence is not imported"], "\(imported)")
        #expect(await harness.result("calendar.get", ["id": "series"])?["event"]?["recurrenceOverrides"] == ["2026-12-03T11:00:00": ["excluded": true]])
        #expect(await harness.call("calendar.get", ["id": "called-off"]).error?["code"] == -32004)
        let day = await harness.result("calendar.day", ["date": "2026-12-03", "timeZone": "Europe/Berlin"])
        #expect(day?["events"] == [], "\(day ?? .null)")
    }

    @Test("an EXRULE is not taken, and the import says so; the event is imported", arguments: CalendarBackend.allCases)
    func exceptionRule(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Problems.calendar([Problems.event("ex", "RRULE:FREQ=DAILY;COUNT=5\r\nEXRULE:FREQ=DAILY;INTERVAL=2;COUNT=3\r\n")])
        let imported = try await Self.importing(ics, into: harness)
        #expect(imported["created"] == 1)
        #expect(Self.reasons(imported) == [0: "left out its EXRULE, which switchboard does not take (it excludes occurrences by EXDATE); the rest is imported"],
                "\(imported)")
    }

    @Test("a second RECURRENCE-ID for one occurrence replaces the first, and the import says so as for a UID given twice",
          arguments: CalendarBackend.allCases)
    func occurrenceChangedTwice(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Problems.calendar([
            Self.lines("UID:twice", "DTSTART;TZID=Europe/Berlin:20261201T090000", "DURATION:PT1H", "SUMMARY:base", "RRULE:FREQ=DAILY;COUNT=5"),
            Self.lines("UID:twice", "RECURRENCE-ID;TZID=Europe/Berlin:20261203T090000", "DTSTART;TZID=Europe/Berlin:20261203T090000",
                       "DURATION:PT1H", "SUMMARY:A"),
            Self.lines("UID:twice", "RECURRENCE-ID;TZID=Europe/Berlin:20261204T090000", "DTSTART;TZID=Europe/Berlin:20261204T090000",
                       "DURATION:PT1H", "SUMMARY:other"),
            // The same occurrence named in UTC.
            Self.lines("UID:twice", "RECURRENCE-ID:20261203T080000Z", "DTSTART;TZID=Europe/Berlin:20261203T090000", "DURATION:PT1H", "SUMMARY:B"),
        ])
        let imported = try await Self.importing(ics, into: harness)
        #expect(Self.reasons(imported) == [3: "the RECURRENCE-ID of VEVENT 1 again: this one replaces it"], "\(imported)")
        let overrides = await harness.result("calendar.get", ["id": "twice"])?["event"]?["recurrenceOverrides"]
        #expect(overrides?["2026-12-03T09:00:00"] == ["title": "B"] && overrides?["2026-12-04T09:00:00"] == ["title": "other"], "\(overrides ?? .null)")
    }

    @Test("a RECURRENCE-ID that is a date, for an event with a time, names the occurrence on that date; with none or several there, the import says so",
          arguments: CalendarBackend.allCases)
    func dateRecurrenceID(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Problems.calendar([
            Self.lines("UID:daily", "DTSTART;TZID=Europe/Berlin:20261201T090000", "DURATION:PT1H", "SUMMARY:base", "RRULE:FREQ=DAILY;COUNT=5"),
            Self.lines("UID:daily", "RECURRENCE-ID;VALUE=DATE:20261203", "DTSTART;TZID=Europe/Berlin:20261203T100000", "DURATION:PT1H", "SUMMARY:moved"),
            Self.lines("UID:daily", "RECURRENCE-ID;VALUE=DATE:20261210", "DTSTART;TZID=Europe/Berlin:20261210T100000", "DURATION:PT1H", "SUMMARY:none"),
            Self.lines("UID:twice-a-day", "DTSTART:20261201T090000Z", "DURATION:PT1H", "SUMMARY:base", "RRULE:FREQ=DAILY;BYHOUR=9,15;COUNT=6"),
            Self.lines("UID:twice-a-day", "RECURRENCE-ID;VALUE=DATE:20261202", "DTSTART:20261202T100000Z", "DURATION:PT1H", "SUMMARY:which"),
        ])
        let imported = try await Self.importing(ics, into: harness)
        #expect(Self.reasons(imported) == [
            2: "its RECURRENCE-ID is a date, and the event has no occurrence on it; the occurrence is not changed",
            4: "its RECURRENCE-ID is a date, and the event has more than one occurrence on it; the occurrence is not changed",
        ], "\(imported)")
        let overrides = await harness.result("calendar.get", ["id": "daily"])?["event"]?["recurrenceOverrides"]
        #expect(overrides?.objectValue?.count == 1, "\(overrides ?? .null)")
        #expect(overrides?["2026-12-03T09:00:00"]?["title"] == "moved" && overrides?["2026-12-03T09:00:00"]?["start"] == "2026-12-03T10:00:00",
                "\(overrides ?? .null)")
        #expect(await harness.result("calendar.get", ["id": "twice-a-day"])?["event"]?["recurrenceOverrides"] == nil)
    }

    @Test("a VEVENT nested in a VALARM is left out and reported with a true reason; the VEVENT around it and the ones after are imported",
          arguments: CalendarBackend.allCases)
    func nestedEvent(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\n" + Problems.event("outer")
            + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nBEGIN:VEVENT\r\n" + Problems.event("inner")
            + "BEGIN:X-DEEP\r\nEND:X-DEEP\r\nEND:VEVENT\r\nEND:VALARM\r\nEND:VEVENT\r\n"
            // A nested one without its END: the END of the VALARM around it ends it.
            + "BEGIN:VEVENT\r\n" + Problems.event("outer2") + "BEGIN:VALARM\r\nBEGIN:VEVENT\r\n" + Problems.event("inner2")
            + "END:VALARM\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\n" + Problems.event("after") + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try await Self.importing(ics, into: harness)
        #expect(imported["created"] == 3, "\(imported)")
        let begins = CalendarICalendarTests.lines(of: ics, holding: "BEGIN:VEVENT")
        let reason = "inside a VALARM of the VEVENT around it, where no VEVENT belongs; the event is not imported"
        #expect(imported["errors"] == [["index": 1, "line": .integer(Int64(begins[1])), "reason": .string(reason)],
                                       ["index": 3, "line": .integer(Int64(begins[3])), "reason": .string(reason)]], "\(imported)")
        for id in ["outer", "outer2", "after"] {
            #expect(await harness.result("calendar.get", ["id": .string(id)])?["event"]?["title"] == .string(id))
        }
        for id in ["inner", "inner2"] {
            #expect(await harness.call("calendar.get", ["id": .string(id)]).error?["code"] == -32004)
        }
    }

    @Test("a backslash before a character RFC 5545 does not escape keeps the character (libical had made it a space); known escapes still read")
    func unknownEscapes() async throws {
        let harness = try await CalendarHarness(.memory)
        let ics = Problems.calendar([
            Problems.event("esc", "SUMMARY:Call 10\\:30 re: a\\xb\r\nDESCRIPTION:one\\ntwo\\, three\\; four\\\\five\\\r\n :six\r\nLOCATION:Room\\ 4\\é\r\n"),
        ])
        let imported = try await Self.importing(ics, into: harness)
        #expect(imported["errors"] == [], "\(imported)")
        let event = await harness.result("calendar.get", ["id": "esc"])?["event"]
        #expect(event?["title"] == "Call 10:30 re: axb")
        #expect(event?["description"] == "one\ntwo, three; four\\five:six")
        #expect(event?["locations"]?["l1"]?["name"] == "Room 4é")
    }

    @Test("an all-day event that ends past 2199, as create takes it, exports to what import takes back", arguments: CalendarBackend.allCases)
    func allDayEndPastTheYears(backend: CalendarBackend) async throws {
        let source = try await CalendarHarness(backend)
        for (id, start, duration) in [("end2199", "2199-12-31T00:00:00", "P2D"), ("long", "2199-01-01T00:00:00", "P3660D")] {
            _ = try #require(await source.result("calendar.create", ["id": .string(id), "title": "x", "start": .string(start),
                                                                     "duration": .string(duration), "showWithoutTime": true]))
        }
        try await CalendarRoundTripTests.expectRoundTrip(source, backend: backend)
        let past = Problems.calendar([Self.lines("UID:far", "DTSTART;VALUE=DATE:21991231", "DTEND;VALUE=DATE:22110101", "SUMMARY:far")])
        let imported = try await Self.importing(past, into: source)
        #expect(imported["created"] == 0 && imported["errors"]?.arrayValue?.count == 1, "\(imported)")
    }

    @Test("an event repeating in a VTIMEZONE with no tz database name and daylight saving is imported at a fixed offset, and the import says so; one-off events and fixed zones need no word",
          arguments: CalendarBackend.allCases)
    func zoneKeptAtFixedOffset(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let zones = Self.lines("BEGIN:VTIMEZONE", "TZID:Custom Standard Time", "BEGIN:STANDARD", "DTSTART:16010101T030000", "TZOFFSETFROM:+0400",
                               "TZOFFSETTO:+0300", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11", "END:STANDARD", "BEGIN:DAYLIGHT",
                               "DTSTART:16010101T020000", "TZOFFSETFROM:+0300", "TZOFFSETTO:+0400", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=4",
                               "END:DAYLIGHT", "END:VTIMEZONE",
                               "BEGIN:VTIMEZONE", "TZID:Fixed", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0300",
                               "TZOFFSETTO:+0300", "END:STANDARD", "END:VTIMEZONE")
        let ics = Problems.calendar([
            Self.lines("UID:cz", "DTSTART;TZID=Custom Standard Time:20270401T090000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=3"),
            Self.lines("UID:once", "DTSTART;TZID=Custom Standard Time:20270415T090000", "DURATION:PT1H"),
            Self.lines("UID:fixed", "DTSTART;TZID=Fixed:20270401T090000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=3"),
        ]).replacingOccurrences(of: "PRODID:-//test//EN\r\n", with: "PRODID:-//test//EN\r\n" + zones)
        let imported = try await Self.importing(ics, into: harness)
        #expect(imported["created"] == 3)
        #expect(Self.reasons(imported) == [0: "its TZID is no tz database name, so its times are kept in UTC: its occurrences do not follow "
                                               + "the daylight saving changes of the file's VTIMEZONE; the event is imported"], "\(imported)")
        let once = await harness.result("calendar.get", ["id": "once"])?["event"]
        #expect(once?["start"] == "2027-04-15T05:00:00" && once?["timeZone"] == "UTC", "\(once ?? .null)")
    }
}
