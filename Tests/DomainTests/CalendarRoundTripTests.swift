import CalendarDomain
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// Our own export imported again changes nothing: every demo event, and the texts and participants
/// iCalendar cannot write plainly (carriage returns, an organizer sharing its address).
@Suite("Calendar iCalendar round trip", .postgresStores)
struct CalendarRoundTripTests {
    /// Exports `source`, imports that into a fresh store of the other backend and exports again: the
    /// two exports are byte for byte the same, the import reports nothing, and `calendar.get` answers
    /// every event the same.
    static func expectRoundTrip(_ source: CalendarHarness, backend: CalendarBackend, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let ids = try await source.calendar.allEvents().events.map(\.id)
        let exported = try #require(await source.result("calendar.export", nil)?["ics"]?.stringValue, sourceLocation: sourceLocation)
        let target = try await CalendarHarness(backend.other)
        let imported = try #require(await target.result("calendar.import", ["ics": .string(exported)]), sourceLocation: sourceLocation)
        #expect(imported["errors"] == [], sourceLocation: sourceLocation)
        #expect(imported["created"] == .integer(Int64(ids.count)), sourceLocation: sourceLocation)
        let again = try #require(await target.result("calendar.export", nil)?["ics"]?.stringValue, sourceLocation: sourceLocation)
        #expect(again == exported, sourceLocation: sourceLocation)
        for id in ids {
            let original = await source.result("calendar.get", ["id": .string(id)])?["event"]
            let loaded = await target.result("calendar.get", ["id": .string(id)])?["event"]
            #expect(loaded?.jsonText() == original?.jsonText(), "event \(id)", sourceLocation: sourceLocation)
        }
    }

    @Test("every demo event comes back from export and import unchanged, and exports to the same bytes", arguments: CalendarBackend.allCases)
    func demoCalendar(backend: CalendarBackend) async throws {
        let today = try #require(CalendarDate("2026-11-23"))
        let source = try await CalendarHarness(backend, events: DemoCalendar.events(around: today))
        try await Self.expectRoundTrip(source, backend: backend)
    }

    @Test("carriage returns in titles, descriptions, locations and names, carets and trailing spaces in names, and organizers sharing an address, survive a round trip",
          arguments: CalendarBackend.allCases)
    func textsAndSharedAddresses(backend: CalendarBackend) async throws {
        let source = try await CalendarHarness(backend)
        let events: [JSONValue] = [
            ["id": "crlf", "title": "Title\r\nsecond line", "start": "2026-11-23T09:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
             "description": "Line one\r\nline two\rlone\r", "locations": ["l1": ["name": "Room\r\nA"], "l2": ["name": "\rRoom B, east"]],
             "participants": ["p1": ["name": "Ana\r\nSouza", "email": "ana@example.com", "roles": ["owner": true]]],
             "recurrenceRules": [["frequency": "daily", "count": 3]],
             "recurrenceOverrides": ["2026-11-24T09:00:00": ["description": "Changed\r\none"]]],
            ["id": "owner-twice", "title": "Owner listed twice", "start": "2026-11-23T10:00:00", "duration": "PT1H",
             "participants": ["p1": ["name": "Ana", "email": "ana@example.com", "roles": ["owner": true]],
                              "p2": ["name": "Bo", "email": "bo@example.com", "roles": ["attendee": true]],
                              "p3": ["name": "Ana again", "email": "ANA@example.com", "roles": ["attendee": true]]]],
            ["id": "attending-owner-twice", "title": "Attending owner listed twice", "start": "2026-11-23T11:00:00", "duration": "PT1H",
             "participants": ["p1": ["name": "Ana first", "email": "ana@example.com", "roles": ["attendee": true]],
                              "p2": ["name": "Ana", "email": "ana@example.com", "roles": ["owner": true, "attendee": true]]]],
            ["id": "attending-owner", "title": "Attending owner", "start": "2026-11-23T12:00:00", "duration": "PT1H",
             "participants": ["p1": ["name": "Ana", "email": "ana@example.com", "roles": ["owner": true, "chair": true, "attendee": true]],
                              "p2": ["name": "Bo", "email": "bo@example.com", "roles": ["attendee": true]]]],
            // Found by the calendar-import fuzzer: libical reads ^^ in a CN as U+001E, writes that as a space, and trims spaces at the end.
            ["id": "names", "title": "Names libical's CN changes", "start": "2026-11-23T13:00:00", "duration": "PT1H",
             "participants": ["p1": ["name": "Priya^^^^Nair  ", "email": "priya@example.com", "roles": ["attendee": true]],
                              "p2": ["name": "a^nb^'c\t", "roles": ["attendee": true]], "p3": ["name": "Zoë 50% ✓", "roles": ["attendee": true]],
                              "p4": ["name": "record\u{1E}separator\u{1}", "roles": ["attendee": true]]]],
        ]
        for event in events { _ = try #require(await source.result("calendar.create", event)) }
        try await Self.expectRoundTrip(source, backend: backend)
        let exported = try #require(await source.result("calendar.export", nil)?["ics"]?.stringValue)
        // Other calendars still see an organizer who attends among the attendees, when nobody else has its address.
        #expect(exported.contains("ORGANIZER;CN=Ana:mailto:ana@example.com\r\nATTENDEE;CN=Ana;ROLE=CHAIR"))
    }

    @Test("texts with spaces, tabs and carriage returns at their ends, random ones too, survive a round trip", arguments: CalendarBackend.allCases)
    func spacesAtTheEnds(backend: CalendarBackend) async throws {
        let source = try await CalendarHarness(backend)
        var random = SplitMix64(seed: 0xE2D5)
        let letters = [" ", " ", "\t", "\r", "\n", "a", "é", ",", ";", ":", "\\"]
        func text() -> String { (0..<(1 + Int(random.next() % 7))).map { _ in letters[Int(random.next() % UInt64(letters.count))] }.joined() }
        var texts = ["  two leading spaces\r and a CR", " x", "\tx", "x\t", "x ", " ", " \t", "  a\rb", "\r ", " \r"]
        while texts.count < 60 { texts.append(text()) }
        for (index, title) in texts.enumerated() {
            let event: JSONValue = [
                "id": .string("ends-\(index)"), "title": .string(title), "start": "2026-11-23T09:00:00", "duration": "PT1H",
                "description": .string(text()), "locations": ["l1": ["name": .string(text())], "l2": ["name": .string(text())]],
                "recurrenceRules": [["frequency": "daily", "count": 2]],
                "recurrenceOverrides": ["2026-11-24T09:00:00": ["title": .string(text())]],
            ]
            _ = try #require(await source.result("calendar.create", event), "\(event.jsonText())")
        }
        try await Self.expectRoundTrip(source, backend: backend)
    }

    @Test("all-day events on the first and last days taken come back: an end of 2200-01-01 (exclusive) is read", arguments: CalendarBackend.allCases)
    func allDayAtTheEdges(backend: CalendarBackend) async throws {
        let source = try await CalendarHarness(backend)
        for (id, start, duration) in [("last", "2199-12-31T00:00:00", "P1D"), ("last-two", "2199-12-30T00:00:00", "P2D"),
                                      ("first", "1900-01-01T00:00:00", "P1D")] {
            _ = try #require(await source.result("calendar.create", ["id": .string(id), "title": .string(id), "start": .string(start),
                                                                     "duration": .string(duration), "showWithoutTime": true]))
        }
        try await Self.expectRoundTrip(source, backend: backend)
    }
}
