import CalendarDomain
import Foundation
import Jansson
import SwitchboardHost
import Testing

/// iCalendar export and import of what one LOCATION and mailto: addresses cannot hold: every
/// location of an event (the first as LOCATION, further ones as X-SWITCHBOARD-LOCATION),
/// participants without an email (`invalid:nomail`, as Google writes them), participants' roles
/// (ROLE, and X-SWITCHBOARD-ROLES where ROLE has no word), and an occurrence's own participants.
@Suite("Calendar iCalendar locations and participants", .postgresStores)
struct CalendarICalendarPeopleTests {
    /// Export `event` from one backend, import it into the other: the same event comes back.
    private func roundTrip(_ event: JSONValue, backend: CalendarBackend, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let source = try await CalendarHarness(backend)
        _ = try #require(await source.result("calendar.create", event), sourceLocation: sourceLocation)
        let ics = try #require(await source.result("calendar.export", nil)?["ics"]?.stringValue, sourceLocation: sourceLocation)
        let target = try await CalendarHarness(backend.other)
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
        #expect(ics.contains("ATTENDEE;CN=Grandma;ROLE=REQ-PARTICIPANT:invalid:nomail"))
        #expect(ics.contains("ORGANIZER;CN=Ana Souza:invalid:nomail"))
        #expect(ics.contains("ATTENDEE;CN=Jonas Becker;ROLE=REQ-PARTICIPANT:mailto:jonas@example.com"))
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
        let harness = try await CalendarHarness(backend)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(Self.google)]))
        #expect(imported["created"] == 1)
        #expect(imported["errors"] == [])
        let event = try #require(await harness.result("calendar.get", ["id": "7kukuqrfedlm2f9t0vl4ac8h9m@google.com"])?["event"])
        let participants = try #require(event["participants"]?.objectValue)
        var byName: [String: JSONValue] = [:]
        for participant in participants.values { byName[participant["name"]?.stringValue ?? ""] = participant }
        // The organizer is a guest too: one participant, with the guest list's name.
        #expect(participants.count == 6)
        #expect(Self.rolesByName(event["participants"])["Ana Souza"] == ["owner", "attendee"])
        #expect(byName["Grandma"]?["email"] == nil)
        #expect(byName["Uncle Bob"]?["email"] == nil)
        #expect(byName["Phone bridge"]?["email"] == nil)
        #expect(byName["Someone"]?["email"] == nil)
        #expect(byName["Ana Souza"]?["email"] == "ana@example.com")
        #expect(byName["Shouting"]?["email"] == "Loud@Example.com")
        #expect(byName["Grandma"]?["roles"] == ["attendee": true])
        // Exported again, the guests without an email stay so, and are not dropped.
        let ics = try #require(await harness.result("calendar.export", nil)?["ics"]?.stringValue)
        #expect(Self.unfolded(ics).contains("ATTENDEE;CN=Grandma;ROLE=REQ-PARTICIPANT:invalid:nomail"))
        #expect(Self.unfolded(ics).contains("ATTENDEE;CN=Phone bridge;ROLE=REQ-PARTICIPANT:invalid:nomail"))
        #expect(Self.unfolded(ics).contains("ORGANIZER;CN=Ana Souza:mailto:ana@example.com"))
        #expect(Self.unfolded(ics).contains("ATTENDEE;CN=Ana Souza;ROLE=REQ-PARTICIPANT:mailto:ana@example.com"))
    }

    /// The VEVENT of `ics` (unfolded) whose RECURRENCE-ID line is `recurrenceID`.
    private static func occurrence(_ ics: String, _ recurrenceID: String) -> String? {
        unfolded(ics).components(separatedBy: "BEGIN:VEVENT").first { $0.contains("RECURRENCE-ID" + recurrenceID + "\r\n") }
    }

    @Test("an occurrence's own participants are exported in its RECURRENCE-ID VEVENT and read back into the override",
          arguments: CalendarBackend.allCases)
    func overrideParticipants(backend: CalendarBackend) async throws {
        let ana: JSONValue = ["name": "Ana Souza", "email": "ana@example.com", "roles": ["owner": true, "attendee": true]]
        let event: JSONValue = [
            "id": "planning", "title": "Planning", "start": "2026-11-24T10:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
            "description": "Sprint planning",
            "participants": ["p1": ana, "p2": ["name": "Jonas Becker", "email": "jonas@example.com", "roles": ["attendee": true]]],
            "recurrenceRules": [["frequency": "weekly", "count": 6]],
            "recurrenceOverrides": [
                "2026-12-01T10:00:00": ["participants": [
                    "p1": ana, "p2": ["name": "Mei Chen", "email": "mei@example.com", "roles": ["attendee": true, "optional": true]],
                    "p3": ["name": "Grandma", "roles": ["informational": true]]]],
                "2026-12-08T10:00:00": ["title": "Planning (long)", "duration": "PT2H", "description": "Quarter close"],
                "2026-12-15T10:00:00": ["participants": ["p1": ana]],
            ],
        ]
        let ics = try await roundTrip(event, backend: backend)
        let changed = try #require(Self.occurrence(ics, ";TZID=Europe/Berlin:20261201T100000"))
        #expect(changed.contains("ORGANIZER;CN=Ana Souza:mailto:ana@example.com"))
        #expect(changed.contains("ATTENDEE;CN=Mei Chen;ROLE=OPT-PARTICIPANT:mailto:mei@example.com"))
        #expect(changed.contains("ATTENDEE;CN=Grandma;ROLE=NON-PARTICIPANT:invalid:nomail"))
        #expect(!changed.contains("jonas@example.com"))
        // An occurrence that keeps the event's people lists them, as other calendars expect of a RECURRENCE-ID VEVENT.
        let longer = try #require(Self.occurrence(ics, ";TZID=Europe/Berlin:20261208T100000"))
        #expect(longer.contains("ATTENDEE;CN=Jonas Becker;ROLE=REQ-PARTICIPANT:mailto:jonas@example.com"))
        #expect(longer.contains("DESCRIPTION:Quarter close"))
        let alone = try #require(Self.occurrence(ics, ";TZID=Europe/Berlin:20261215T100000"))
        #expect(!alone.contains("jonas@example.com"))
    }

    @Test("every JSCalendar role comes back: ROLE where RFC 5545 has the word, X-SWITCHBOARD-ROLES where not",
          arguments: CalendarBackend.allCases)
    func rolesRoundTrip(backend: CalendarBackend) async throws {
        let event: JSONValue = [
            "id": "review", "title": "Design review", "start": "2026-11-25T14:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
            "participants": [
                "p1": ["name": "Ana", "email": "ana@example.com", "roles": ["owner": true, "attendee": true, "chair": true]],
                "p2": ["name": "Jonas", "email": "jonas@example.com", "roles": ["attendee": true, "chair": true]],
                "p3": ["name": "Mei", "email": "mei@example.com", "roles": ["attendee": true, "optional": true]],
                "p4": ["name": "Boss", "email": "boss@example.com", "roles": ["informational": true]],
                "p5": ["name": "Desk", "email": "desk@example.com", "roles": ["contact": true]],
                "p6": ["name": "Lee", "roles": ["chair": true]],
                "p7": ["name": "Sam", "roles": ["optional": true]],
                "p8": ["name": "Kim", "email": "kim@example.com", "roles": ["owner": true]],
                "p9": ["name": "Noor", "roles": ["owner": true, "attendee": true]],
                "p10": ["name": "Ravi", "email": "ravi@example.com", "roles": ["attendee": true, "contact": true]],
                "p11": ["name": "Zoe"],
                "p12": ["name": "Ida", "email": "ida@example.com", "roles": ["attendee": true]],
                "p13": ["name": "Vendor", "roles": ["attendee": true, "example.com:speaker": true]],
            ],
        ]
        let ics = Self.unfolded(try await roundTrip(event, backend: backend))
        for line in [
            "ORGANIZER;CN=Ana:mailto:ana@example.com",
            "ATTENDEE;CN=Ana;ROLE=CHAIR:mailto:ana@example.com",
            "ATTENDEE;CN=Jonas;ROLE=CHAIR:mailto:jonas@example.com",
            "ATTENDEE;CN=Mei;ROLE=OPT-PARTICIPANT:mailto:mei@example.com",
            "ATTENDEE;CN=Boss;ROLE=NON-PARTICIPANT:mailto:boss@example.com",
            "ATTENDEE;CN=Desk;ROLE=NON-PARTICIPANT;X-SWITCHBOARD-ROLES=contact:mailto:desk@example.com",
            "ATTENDEE;CN=Lee;ROLE=CHAIR;X-SWITCHBOARD-ROLES=chair:invalid:nomail",
            "ATTENDEE;CN=Sam;ROLE=OPT-PARTICIPANT;X-SWITCHBOARD-ROLES=optional:invalid:nomail",
            "ATTENDEE;CN=Kim;ROLE=NON-PARTICIPANT;X-SWITCHBOARD-ROLES=owner:mailto:kim@example.com",
            "ATTENDEE;CN=Noor;ROLE=REQ-PARTICIPANT;X-SWITCHBOARD-ROLES=\"attendee,owner\":invalid:nomail",
            "ATTENDEE;CN=Ravi;ROLE=REQ-PARTICIPANT;X-SWITCHBOARD-ROLES=\"attendee,contact\":mailto:ravi@example.com",
            "ATTENDEE;CN=Zoe;ROLE=REQ-PARTICIPANT;X-SWITCHBOARD-ROLES=\"\":invalid:nomail",
            "ATTENDEE;CN=Ida;ROLE=REQ-PARTICIPANT:mailto:ida@example.com",
            "ATTENDEE;CN=Vendor;ROLE=REQ-PARTICIPANT;X-SWITCHBOARD-ROLES=\"attendee,example.com:speaker\":invalid:nomail",
        ] {
            #expect(ics.contains(line + "\r\n"), "\(line)")
        }
        #expect(ics.components(separatedBy: "ORGANIZER").count == 2)
    }

    /// As Thunderbird writes a meeting: the organizer is also the chairing attendee, and a changed
    /// occurrence carries its own attendee list.
    static let thunderbirdMeeting = """
        BEGIN:VCALENDAR\r
        PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN\r
        VERSION:2.0\r
        \(CalendarICalendarTests.berlinZone)\r
        BEGIN:VEVENT\r
        CREATED:20261101T120000Z\r
        LAST-MODIFIED:20261101T121500Z\r
        DTSTAMP:20261101T121500Z\r
        UID:5a1b7c3e-tb-design-review\r
        SUMMARY:Design review\r
        ORGANIZER;RSVP=TRUE;CN=Ana Souza;PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:ana@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Ana Souza;PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:ana@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Jonas Becker;PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:jonas@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Mei Chen;PARTSTAT=NEEDS-ACTION;ROLE=OPT-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:mei@example.com\r
        ATTENDEE;RSVP=FALSE;CN=Boss;PARTSTAT=NEEDS-ACTION;ROLE=NON-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:boss@example.com\r
        ATTENDEE;CN=Room Spree;PARTSTAT=NEEDS-ACTION;ROLE=X-ROOM-BOOKING;CUTYPE=ROOM:mailto:spree@example.com\r
        RRULE:FREQ=WEEKLY;COUNT=4\r
        DTSTART;TZID=Europe/Berlin:20261125T140000\r
        DTEND;TZID=Europe/Berlin:20261125T150000\r
        SEQUENCE:1\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        CREATED:20261101T120000Z\r
        LAST-MODIFIED:20261101T121500Z\r
        DTSTAMP:20261101T121500Z\r
        UID:5a1b7c3e-tb-design-review\r
        SUMMARY:Design review\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261202T140000\r
        ORGANIZER;RSVP=TRUE;CN=Ana Souza;PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:ana@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Ana Souza;PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:ana@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Jonas Becker;PARTSTAT=ACCEPTED;ROLE=OPT-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:jonas@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Priya Nair;PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:priya@example.com\r
        DTSTART;TZID=Europe/Berlin:20261202T140000\r
        DTEND;TZID=Europe/Berlin:20261202T150000\r
        SEQUENCE:2\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        CREATED:20261101T120000Z\r
        LAST-MODIFIED:20261101T121500Z\r
        DTSTAMP:20261101T121500Z\r
        UID:5a1b7c3e-tb-design-review\r
        SUMMARY:Design review\r
        RECURRENCE-ID;TZID=Europe/Berlin:20261209T140000\r
        ORGANIZER;RSVP=TRUE;CN=Ana Souza;PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:ana@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Ana Souza;PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:ana@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Jonas Becker;PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:jonas@example.com\r
        ATTENDEE;RSVP=TRUE;CN=Mei Chen;PARTSTAT=NEEDS-ACTION;ROLE=OPT-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:mei@example.com\r
        ATTENDEE;RSVP=FALSE;CN=Boss;PARTSTAT=NEEDS-ACTION;ROLE=NON-PARTICIPANT;CUTYPE=INDIVIDUAL:mailto:boss@example.com\r
        ATTENDEE;CN=Room Spree;PARTSTAT=NEEDS-ACTION;ROLE=X-ROOM-BOOKING;CUTYPE=ROOM:mailto:spree@example.com\r
        DTSTART;TZID=Europe/Berlin:20261209T160000\r
        DTEND;TZID=Europe/Berlin:20261209T170000\r
        SEQUENCE:2\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// The roles of `participants` by name (JSON objects compare in order; sets do not).
    private static func rolesByName(_ participants: JSONValue?) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for participant in participants?.objectValue?.values ?? [] {
            let roles = participant["roles"]?.objectValue.map { Set(zip($0.keys, $0.values).filter { $0.1 == true }.map(\.0)) }
            result[participant["name"]?.stringValue ?? ""] = roles ?? []
        }
        return result
    }

    @Test("a Thunderbird meeting imports: ROLE values become roles, the chairing organizer is one participant, an occurrence keeps its own attendees",
          arguments: CalendarBackend.allCases)
    func thunderbirdRolesAndOccurrenceAttendees(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(Self.thunderbirdMeeting)]))
        #expect(imported["created"] == 1)
        #expect(imported["errors"] == [])
        let event = try #require(await harness.result("calendar.get", ["id": "5a1b7c3e-tb-design-review"])?["event"])
        #expect(event["participants"]?.objectValue?.count == 5)
        #expect(event["participants"]?["p1"]?["email"] == "ana@example.com")
        let roles = Self.rolesByName(event["participants"])
        #expect(roles["Ana Souza"] == ["owner", "attendee", "chair"])
        #expect(roles["Jonas Becker"] == ["attendee"])
        #expect(roles["Mei Chen"] == ["attendee", "optional"])
        #expect(roles["Boss"] == ["informational"])
        #expect(roles["Room Spree"] == ["attendee"])
        let overrides = try #require(event["recurrenceOverrides"])
        let changed = try #require(overrides["2026-12-02T14:00:00"])
        #expect(changed["title"] == nil && changed["start"] == nil)
        let changedRoles = Self.rolesByName(changed["participants"])
        #expect(changedRoles.count == 3)
        #expect(changedRoles["Ana Souza"] == ["owner", "attendee", "chair"])
        #expect(changedRoles["Jonas Becker"] == ["attendee", "optional"])
        #expect(changedRoles["Priya Nair"] == ["attendee"])
        // The moved occurrence lists the event's own people: no participants of its own.
        #expect(overrides["2026-12-09T14:00:00"]?["start"] == "2026-12-09T16:00:00")
        #expect(overrides["2026-12-09T14:00:00"]?["participants"] == nil)
        // The agenda shows the occurrence's people on its day.
        let day = try #require(await harness.result("calendar.day", ["date": "2026-12-02", "timeZone": "Europe/Berlin"]))
        #expect(Self.rolesByName(day["events"]?.arrayValue?.first?["participants"]).keys.sorted() == ["Ana Souza", "Jonas Becker", "Priya Nair"])
        // Exported and imported again, the event is the same.
        let ics = try #require(await harness.result("calendar.export", nil)?["ics"]?.stringValue)
        #expect(Self.occurrence(ics, ";TZID=Europe/Berlin:20261202T140000")?.contains("CN=Priya Nair;ROLE=REQ-PARTICIPANT:mailto:priya@example.com") == true)
        let target = try await CalendarHarness(backend.other)
        #expect(await target.result("calendar.import", ["ics": .string(ics)])?["created"] == 1)
        let loaded = try #require(await target.result("calendar.get", ["id": "5a1b7c3e-tb-design-review"])?["event"])
        #expect(try CalendarICalendarTests.event(loaded) == CalendarICalendarTests.event(event))
    }

    @Test("an imported occurrence whose attendee has a name too long is listed as an error and the event kept")
    func occurrenceParticipantsAreChecked() async throws {
        let harness = try await CalendarHarness(.memory)
        let name = String(repeating: "n", count: 1_001)
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
            + "BEGIN:VEVENT\r\nUID:weekly\r\nDTSTART:20261103T093000\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:weekly\r\nRECURRENCE-ID:20261110T093000\r\nDTSTART:20261110T093000\r\nDURATION:PT1H\r\nSUMMARY:Weekly\r\n"
            + "ATTENDEE;CN=\(name):mailto:long@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        let error = imported["errors"]?.arrayValue?.first
        #expect(error?["index"] == 1)
        #expect(error?["reason"]?.stringValue?.hasPrefix("recurrenceOverrides.2026-11-10T09:30:00.participants.p1.name") == true)
        let event = try #require(await harness.result("calendar.get", ["id": "weekly"])?["event"])
        #expect(event["recurrenceOverrides"] == nil)
    }

    /// Found by the calendar-import fuzzer: libical reads `UID:\f` as a form feed and writes it back as an
    /// empty UID, so the export did not import again. A UID or id with a control character is refused.
    @Test("a UID with a control character is listed as an error on import, and such an id is refused by calendar.create", arguments: CalendarBackend.allCases)
    func controlCharacterInUID(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\nBEGIN:VEVENT\r\nUID:\\f\r\nDTSTART:20261103T093000\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:kept\r\nDTSTART:20261103T093000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        let error = imported["errors"]?.arrayValue?.first
        #expect(error?["index"] == 0)
        #expect(error?["reason"]?.stringValue?.contains("control character") == true)
        let exported = try #require(await harness.result("calendar.export", nil)?["ics"]?.stringValue)
        let again = try await CalendarHarness(backend)
        #expect(await again.result("calendar.import", ["ics": .string(exported)])?["created"] == 1)
        let field = await harness.invalidField("calendar.create", ["id": "a\u{0C}b", "title": "t", "start": "2026-11-03T09:30:00",
                                                                   "timeZone": "Europe/Berlin", "duration": "PT1H"])
        #expect(field == "id")
    }

    @Test("a NUL a percent-encoded X-SWITCHBOARD-CN makes is refused on import as create refuses it, naming the participant; the other events are imported",
          arguments: CalendarBackend.allCases)
    func nulInImportedName(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = CalendarImportProblemsTests.calendar([
            CalendarImportProblemsTests.event("nul", "ATTENDEE;CN=x;X-SWITCHBOARD-CN=a%00b:mailto:a@example.com\r\n"),
            CalendarImportProblemsTests.event("fine", "ATTENDEE;CN=x;X-SWITCHBOARD-CN=a%01b:mailto:a@example.com\r\n"),
        ])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        #expect(imported["errors"]?.arrayValue?.map { $0["reason"] } == ["participants.p1.name: expected a string without U+0000 (NUL); the event is not imported"])
        #expect(await harness.call("calendar.get", ["id": "nul"]).error?["code"] == -32004)
        #expect(await harness.result("calendar.get", ["id": "fine"])?["event"]?["participants"]?["p1"]?["name"] == "a\u{1}b")
        #expect(await harness.invalidField("calendar.create", ["title": "t", "start": "2026-11-23T09:00:00",
                                                              "participants": ["p1": ["name": "a\u{0}b"]]]) == "participants.p1.name")
    }

    @Test("a participant has at most 32 roles: create and update refuse more naming the member, import reports an X-SWITCHBOARD-ROLES of more",
          arguments: CalendarBackend.allCases)
    func atMost32Roles(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        func roles(_ count: Int) -> JSONValue {
            var roles = JSONObject()
            for index in 0..<count { roles["role\(index)"] = true }
            return .object(roles)
        }
        let created = await harness.result("calendar.create", ["id": "team", "title": "t", "start": "2026-11-23T09:00:00",
                                                                "participants": ["p1": ["name": "Ana", "roles": roles(32)]]])
        #expect(created?["created"] == true)
        #expect(await harness.invalidField("calendar.create", ["title": "t", "start": "2026-11-23T09:00:00",
                                                              "participants": ["p1": ["name": "Ana", "roles": roles(33)]]]) == "participants.p1.roles")
        #expect(await harness.invalidField("calendar.update", ["id": "team", "patch": ["participants": ["p1": ["name": "Ana", "roles": roles(33)]]]])
                == "patch.participants.p1.roles")
        // 32 roles come back from an export whole.
        let exported = try #require(await harness.result("calendar.export", nil)?["ics"]?.stringValue)
        let again = try await CalendarHarness(backend.other)
        #expect(await again.result("calendar.import", ["ics": .string(exported)])?["errors"] == [])
        #expect(await again.result("calendar.get", ["id": "team"])?["event"]?["participants"]?["p1"]?["roles"]?.objectValue?.count == 32)

        let names = (0..<5_000).map { "r\($0)" }.joined(separator: ",")
        let ics = CalendarImportProblemsTests.calendar([
            CalendarImportProblemsTests.event("many", "ATTENDEE;CN=Ana;X-SWITCHBOARD-ROLES=\"\(names)\":mailto:ana@example.com\r\n"),
            CalendarImportProblemsTests.event("few", "ATTENDEE;CN=Ana;X-SWITCHBOARD-ROLES=\"contact,attendee\":mailto:ana@example.com\r\n"),
        ])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        #expect(imported["errors"]?.arrayValue?.map { $0["reason"] } == ["participants.p1.roles: expected at most 32 roles; the event is not imported"])
        #expect(await harness.result("calendar.get", ["id": "few"])?["event"]?["participants"]?["p1"]?["roles"] == ["attendee": true, "contact": true])
    }
}
