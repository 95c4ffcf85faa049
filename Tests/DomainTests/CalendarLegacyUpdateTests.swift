import CalendarDomain
import Jansson
import SwitchboardHost
import Testing

/// An event stored under earlier rules (a rule RFC 5545 forbids, which switchboard took before) can
/// still be updated in what the patch changes: only what changes is checked again.
@Suite("Calendar: updating events stored under earlier rules", .postgresStores)
struct CalendarLegacyUpdateTests {
    @Test("a title update of an event whose stored rule is now refused is taken; a new rule of that kind is refused",
          arguments: CalendarBackend.allCases)
    func titleOfLegacyEvent(backend: CalendarBackend) async throws {
        // Daily with the first Monday: RFC 5545 allows an nth weekday only in monthly and yearly rules.
        let rule = RecurrenceRule(frequency: .daily, byDay: [.init(day: .mo, nthOfPeriod: 1)])
        let harness = try await CalendarHarness(backend, events: [.timed("old", "Old", "2026-11-02T09:00:00", rules: [rule])])
        let updated = await harness.result("calendar.update", ["id": "old", "patch": ["title": "Renamed"]])
        #expect(updated?["event"]?["title"] == "Renamed", "\(String(describing: updated))")
        let refused = await harness.call("calendar.update", [
            "id": "old", "patch": ["recurrenceRules": [["frequency": "weekly", "byDay": [["day": "mo", "nthOfPeriod": 2]]]]],
        ])
        #expect(refused.error?["code"] == -32602, "\(String(describing: refused.error))")
    }
}
