import CalendarDomain
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// `calendar.agenda` writes its answer as text (with each event's details written once per state);
/// `calendar.day` encodes the same entries through `Encodable`. The two must agree, entry for entry.
@Suite("Calendar agenda written as text", .postgresStores)
struct CalendarAgendaTextTests {
    static let week = (23...29).map { "2026-11-\($0)" }

    static let events: [JSONValue] = [
        ["id": "weekly", "title": "Stand-up \"daily\" \\ \n\t\u{1} ☕️", "description": "Line one\r\nline two",
         "start": "2026-11-02T09:30:00", "timeZone": "Europe/Berlin", "duration": "PT15M",
         "locations": ["room": ["name": "Raum \"Süd\""]],
         "participants": ["p1": ["name": "Zoë", "email": "zoe@example.com", "roles": ["owner": true, "attendee": true]],
                          "p2": ["email": "x@example.com"]],
         "recurrenceRules": [["frequency": "daily"]],
         "recurrenceOverrides": ["2026-11-24T09:30:00": ["title": "Moved stand-up", "participants": [:]],
                                 "2026-11-25T09:30:00": ["excluded": true],
                                 "2026-11-26T09:30:00": ["start": "2026-11-26T23:30:00", "duration": "PT2H"]]],
        ["id": "holiday", "title": "Holiday", "start": "2026-11-27T00:00:00", "showWithoutTime": true, "duration": "P2D"],
        ["id": "floating", "title": "Floating", "start": "2026-11-23T12:00:00", "duration": "PT0S"],
        ["id": "night", "title": "Night train", "start": "2026-11-28T21:00:00", "timeZone": "America/New_York", "duration": "PT10H"],
    ]

    @Test("each day of an agenda is the day calendar.day answers, before and after an edit", arguments: CalendarBackend.allCases)
    func agendaMatchesDays(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        for event in Self.events { _ = try #require(await harness.result("calendar.create", event)) }
        try await expectAgendaMatchesDays(harness)
        // Asked again, the details come from the cache: the same answer.
        try await expectAgendaMatchesDays(harness)
        _ = try #require(await harness.result("calendar.update", ["id": "weekly", "patch": ["title": "Renamed"]]))
        let agenda = try await expectAgendaMatchesDays(harness)
        let titles = (agenda["days"]?.arrayValue?.first?["events"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        #expect(titles.contains("Renamed"))
    }

    @discardableResult
    private func expectAgendaMatchesDays(_ harness: CalendarHarness) async throws -> JSONValue {
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-29"]))
        let days = try #require(agenda["days"]?.arrayValue)
        #expect(days.count == Self.week.count)
        #expect(days.contains { ($0["events"]?.arrayValue?.count ?? 0) > 1 })
        for (date, day) in zip(Self.week, days) {
            let alone = try #require(await harness.result("calendar.day", ["date": .string(date)]))
            #expect(day["events"] == alone["events"], "\(date)")
            #expect(day["lengthMinutes"] == alone["lengthMinutes"])
        }
        return agenda
    }
}
