@testable import CalendarDomain
import Jansson
import SwitchboardCore
import Testing

/// The agenda's text (``AgendaText``, written with a byte cursor from the flat layout) is byte for
/// byte what its `Encodable` conformance encodes through jansson, on ranges across DST gaps and folds,
/// Lord Howe's half hours and Samoa, for both services.
@Suite("Calendar agenda text, byte for byte", .postgresStores)
struct CalendarAgendaBytesTests {
    static let events: [JSONValue] = CalendarAgendaTextTests.events + [
        ["id": "gap-berlin", "title": "Night job", "start": "2026-03-20T02:30:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
         "recurrenceRules": [["frequency": "daily", "count": 40]]],
        ["id": "gap-lordhowe", "title": "Lord Howe watch", "start": "2026-09-28T02:15:00", "timeZone": "Australia/Lord_Howe",
         "duration": "PT30M", "recurrenceRules": [["frequency": "daily", "until": "2026-10-10T02:15:00"]]],
        ["id": "fold-ny", "title": "Fold", "start": "2026-10-28T01:30:00", "timeZone": "America/New_York", "duration": "PT45M",
         "recurrenceRules": [["frequency": "daily", "count": 10]]],
        ["id": "floating-gap", "title": "Floating", "start": "2026-03-29T02:30:00", "duration": "PT0S"],
        ["id": "night-ny", "title": "Night train", "start": "2026-10-31T21:00:00", "timeZone": "America/New_York", "duration": "P1DT10H"],
        ["id": "apia", "title": "Apia", "start": "2026-03-01T12:00:00", "timeZone": "Pacific/Apia", "duration": "PT1H",
         "recurrenceRules": [["frequency": "monthly", "byDay": [["day": "fr", "nthOfPeriod": -1]]]]],
        ["id": "same-time", "title": "Stand-up \"daily\" \\ \n\t\u{1} ☕️", "start": "2026-11-23T09:30:00", "timeZone": "Europe/Berlin",
         "duration": "PT15M"],
        ["id": "trip", "title": "Trip", "start": "2026-03-27T00:00:00", "showWithoutTime": true, "duration": "P3D"],
    ]

    static let ranges: [(from: String, to: String, zone: String)] = [
        ("2026-03-20", "2026-04-10", "Europe/Berlin"),
        ("2026-03-25", "2026-04-02", "UTC"),
        ("2026-09-27", "2026-10-12", "Australia/Lord_Howe"),
        ("2026-10-25", "2026-11-30", "America/New_York"),
        ("2026-03-01", "2026-12-31", "Pacific/Apia"),
        ("2026-11-23", "2026-11-29", "Asia/Kolkata"),
    ]

    @Test("the agenda's text is what Encodable writes", arguments: CalendarBackend.allCases)
    func textMatchesEncodable(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2026-06-01T00:00:00Z")
        for event in Self.events { _ = try #require(await harness.result("calendar.create", event)) }
        let context = CalendarContext(calendar: harness.calendar, clock: FixedClock(milliseconds: Timestamp.parse("2026-06-01T00:00:00Z") ?? 0),
                                      defaultZone: "Europe/Berlin")
        for range in Self.ranges {
            let params = CalendarAgenda.Params(from: try #require(CalendarDate(range.from)), to: try #require(CalendarDate(range.to)),
                                               timeZone: range.zone)
            // Twice: the second answer copies the details kept by the first.
            for _ in 0..<2 {
                let result = try await CalendarAgenda.run(params, context: context)
                var text: [UInt8] = []
                try result.writeJSON(into: &text)
                var encoder = JanssonEncoder()
                encoder.userInfo[try #require(CodingUserInfoKey(rawValue: "codable"))] = true
                let encoded = try encoder.encode(result)
                let expected = withExtendedLifetime(encoded) { JSONWriter.bytes(of: encoded.view) }
                #expect(String(decoding: text, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(range)")
                #expect(result.days.reduce(0) { $0 + $1.events.count } > 0, "\(range)")
            }
        }
    }
}
