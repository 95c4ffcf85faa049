import CalendarDomain
import Jansson
import Testing

/// RFC 8984's `@type` in `calendar.create`: taken where JSCalendar defines it, its value checked, never
/// written back (issue 20, point 7).
@Suite("Calendar: JSCalendar @type", .postgresStores)
struct CalendarJSCalendarTypeTests {
    static func event(_ types: [String: String] = [:]) -> JSONValue {
        func typed(_ object: JSONObject, _ key: String) -> JSONValue {
            var object = object
            if let type = types[key] { object["@type"] = .string(type) }
            return .object(object)
        }
        var event: JSONObject = [
            "id": "typed", "title": "Typed", "start": "2026-11-02T09:30:00", "timeZone": "Europe/Berlin", "duration": "PT15M",
            "locations": ["room": typed(["name": "Room 1"], "location")],
            "participants": ["ada": typed(["name": "Ada", "email": "ada@example.com", "roles": ["attendee": true]], "participant")],
            "recurrenceRules": [typed(["frequency": "weekly", "count": 3, "byDay": [typed(["day": "mo"], "nday")]], "rule")],
        ]
        if let type = types["event"] { event["@type"] = .string(type) }
        return .object(event)
    }

    @Test("every @type RFC 8984 defines is taken, and the answer carries none", arguments: CalendarBackend.allCases)
    func taken(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let types = ["event": "Event", "location": "Location", "participant": "Participant", "rule": "RecurrenceRule", "nday": "NDay"]
        let created = try #require(await harness.result("calendar.create", Self.event(types)))
        #expect(!created.jsonText().contains("@type"))
        let untyped = try #require(await harness.result("calendar.get", ["id": "typed"]))
        #expect(untyped["event"]?["recurrenceRules"] == created["event"]?["recurrenceRules"])
    }

    @Test("a wrong @type is -32602 naming it", arguments: [
        ("event", "@type"), ("location", "locations.room.@type"), ("participant", "participants.ada.@type"),
        ("rule", "recurrenceRules[0].@type"), ("nday", "recurrenceRules[0].byDay[0].@type"),
    ])
    func wrongType(key: String, field: String) async throws {
        let harness = try await CalendarHarness(.memory)
        #expect(await harness.invalidField("calendar.create", Self.event([key: "Task"])) == field)
    }
}
