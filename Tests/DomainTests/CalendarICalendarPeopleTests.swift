import CalendarDomain
import Foundation
import Jansson
import Testing

/// iCalendar export and import of what one LOCATION and mailto: addresses cannot hold: every
/// location of an event (the first as LOCATION, further ones as X-SWITCHBOARD-LOCATION), and
/// participants without an email (`invalid:nomail`, as Google writes them).
@Suite("Calendar iCalendar locations and participants")
struct CalendarICalendarPeopleTests {
    /// Export `event` from one backend, import it into the other: the same event comes back.
    private func roundTrip(_ event: JSONValue, backend: CalendarBackend, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let source = try CalendarHarness(backend)
        _ = try #require(await source.result("calendar.create", event), sourceLocation: sourceLocation)
        let ics = try #require(await source.result("calendar.export", nil)?["ics"]?.stringValue, sourceLocation: sourceLocation)
        let target = try CalendarHarness(backend == .memory ? .sqlite : .memory)
        let imported = try #require(await target.result("calendar.import", ["ics": .string(ics)]), sourceLocation: sourceLocation)
        #expect(imported["created"] == 1, sourceLocation: sourceLocation)
        #expect(imported["errors"] == [], sourceLocation: sourceLocation)
        let id = try #require(event["id"], sourceLocation: sourceLocation)
        let original = try #require(await source.result("calendar.get", ["id": id])?["event"], sourceLocation: sourceLocation)
        let loaded = try #require(await target.result("calendar.get", ["id": id])?["event"], sourceLocation: sourceLocation)
        #expect(try CalendarICalendarTests.event(loaded) == CalendarICalendarTests.event(original), sourceLocation: sourceLocation)
        let again = try #require(await target.result("calendar.import", ["ics": .string(ics)]), sourceLocation: sourceLocation)
        #expect(again["unchanged"] == 1, sourceLocation: sourceLocation)
        return ics
    }

    /// `ics` with its folded lines joined (RFC 5545 §3.1).
    private static func unfolded(_ ics: String) -> String {
        ics.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\n ", with: "")
    }

    @Test("every location is exported, further ones as X-SWITCHBOARD-LOCATION, and read back", arguments: CalendarBackend.allCases)
    func everyLocation(backend: CalendarBackend) async throws {
        let event: JSONValue = [
            "id": "offsite", "title": "Offsite", "start": "2026-11-24T09:00:00", "timeZone": "Europe/Berlin", "duration": "PT8H",
            "locations": ["l1": ["name": "Hotel Adlon"], "l2": ["name": "Room 2, east wing; 3rd floor"],
                          "l3": ["name": "Back\\slash \"quoted\"\nsecond line"]],
            "recurrenceRules": [["frequency": "weekly", "count": 4]],
            "recurrenceOverrides": ["2026-12-01T09:00:00": ["locations": ["l1": ["name": "Online"], "l2": ["name": "Room 9"]]],
                                    "2026-12-08T09:00:00": ["title": "Offsite (short)", "duration": "PT4H"]],
        ]
        let ics = Self.unfolded(try await roundTrip(event, backend: backend))
        #expect(ics.contains("LOCATION:Hotel Adlon"))
        #expect(ics.contains("X-SWITCHBOARD-LOCATION"))
        #expect(!ics.contains("BEGIN:VLOCATION"))
    }

    @Test("participants without an email are exported as invalid:nomail and read back without one", arguments: CalendarBackend.allCases)
    func participantsWithoutEmail(backend: CalendarBackend) async throws {
        let event: JSONValue = [
            "id": "dinner", "title": "Dinner", "start": "2026-11-27T19:00:00", "timeZone": "Europe/Berlin", "duration": "PT2H",
            "locations": ["l1": ["name": "Trattoria"]],
            "participants": ["p1": ["name": "Ana Souza", "roles": ["owner": true]],
                             "p2": ["name": "Jonas Becker", "email": "jonas@example.com", "roles": ["attendee": true]],
                             "p3": ["name": "Grandma", "roles": ["attendee": true]],
                             "p4": ["roles": ["attendee": true]]],
        ]
        let ics = Self.unfolded(try await roundTrip(event, backend: backend))
        #expect(ics.contains("ATTENDEE;CN=Grandma:invalid:nomail"))
        #expect(ics.contains("ORGANIZER;CN=Ana Souza:invalid:nomail"))
        #expect(ics.contains("ATTENDEE;CN=Jonas Becker:mailto:jonas@example.com"))
    }

    /// As Google Calendar exports guests without an email address, beside other address schemes.
    static let google = """
        BEGIN:VCALENDAR\r
        PRODID:-//Google Inc//Google Calendar 70.9054//EN\r
        VERSION:2.0\r
        BEGIN:VEVENT\r
        DTSTART:20261124T170000Z\r
        DTEND:20261124T180000Z\r
        DTSTAMP:20261101T120000Z\r
        ORGANIZER;CN=ana@example.com:mailto:ana@example.com\r
        UID:7kukuqrfedlm2f9t0vl4ac8h9m@google.com\r
        ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Ana Souza;X-NUM-GUESTS=0:mailto:ana@example.com\r
        ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;CN=Grandma;X-NUM-GUESTS=0:invalid:nomail\r
        ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;CN=Uncle Bob;X-NUM-GUESTS=0:invalid:nomail\r
        ATTENDEE;CUTYPE=RESOURCE;CN=Phone bridge:tel:+49-30-1234567\r
        ATTENDEE;CN=Someone:urn:uuid:6f1c0a9e-1111-2222-3333-444455556666\r
        ATTENDEE;CN=Shouting:MAILTO:Loud@Example.com\r
        SUMMARY:Family call\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test("Google-style guests without an email import with their name and no email; only mailto: gives one", arguments: CalendarBackend.allCases)
    func googleGuestsWithoutEmail(backend: CalendarBackend) async throws {
        let harness = try CalendarHarness(backend)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(Self.google)]))
        #expect(imported["created"] == 1)
        #expect(imported["errors"] == [])
        let event = try #require(await harness.result("calendar.get", ["id": "7kukuqrfedlm2f9t0vl4ac8h9m@google.com"])?["event"])
        let participants = try #require(event["participants"]?.objectValue)
        var byName: [String: JSONValue] = [:]
        for participant in participants.values { byName[participant["name"]?.stringValue ?? ""] = participant }
        #expect(participants.count == 7)
        #expect(byName["Grandma"]?["email"] == nil)
        #expect(byName["Uncle Bob"]?["email"] == nil)
        #expect(byName["Phone bridge"]?["email"] == nil)
        #expect(byName["Someone"]?["email"] == nil)
        #expect(byName["Ana Souza"]?["email"] == "ana@example.com")
        #expect(byName["Shouting"]?["email"] == "Loud@Example.com")
        #expect(byName["Grandma"]?["roles"] == ["attendee": true])
        // Exported again, the guests without an email stay so, and are not dropped.
        let ics = try #require(await harness.result("calendar.export", nil)?["ics"]?.stringValue)
        #expect(Self.unfolded(ics).contains("ATTENDEE;CN=Grandma:invalid:nomail"))
        #expect(Self.unfolded(ics).contains("ATTENDEE;CN=Phone bridge:invalid:nomail"))
    }

    /// Found by the calendar-import fuzzer: libical reads `UID:\f` as a form feed and writes it back as an
    /// empty UID, so the export did not import again. A UID or id with a control character is refused.
    @Test("a UID with a control character is listed as an error on import, and such an id is refused by calendar.create", arguments: CalendarBackend.allCases)
    func controlCharacterInUID(backend: CalendarBackend) async throws {
        let harness = try CalendarHarness(backend)
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\nBEGIN:VEVENT\r\nUID:\\f\r\nDTSTART:20261103T093000\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:kept\r\nDTSTART:20261103T093000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        let error = imported["errors"]?.arrayValue?.first
        #expect(error?["index"] == 0)
        #expect(error?["reason"]?.stringValue?.contains("control character") == true)
        let exported = try #require(await harness.result("calendar.export", nil)?["ics"]?.stringValue)
        let again = try CalendarHarness(backend)
        #expect(await again.result("calendar.import", ["ics": .string(exported)])?["created"] == 1)
        let field = await harness.invalidField("calendar.create", ["id": "a\u{0C}b", "title": "t", "start": "2026-11-03T09:30:00",
                                                                   "timeZone": "Europe/Berlin", "duration": "PT1H"])
        #expect(field == "id")
    }
}
