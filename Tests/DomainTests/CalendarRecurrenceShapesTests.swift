import CalendarDomain
import Jansson
import SwitchboardCore
import Testing

/// Rule shapes libical 3.0.16 expanded wrongly without a word (probe of calendar and iCalendar,
/// item 1), each through `calendar.create` and `calendar.agenda` with the dates RFC 5545 §3.3.10
/// gives, or python-dateutil where the RFC has no example: week numbers across the new year,
/// `byYearDay` beside `byMonth`, a negative `byMonthDay` with `daily`, `bySetPosition` with `weekly`
/// and over listed hours, and a `count` whose start the rule does not make (the start counts).
@Suite("Calendar recurrence rule shapes", .postgresStores)
struct CalendarRecurrenceShapesTests {
    /// The original starts (`recurrenceId`s) `event` shows in an agenda from `from` to `to` (UTC).
    static func starts(_ event: JSONValue, now: String = "2026-11-28T12:00:00Z", from: String, to: String,
                       backend: CalendarBackend) async throws -> [String] {
        let harness = try await CalendarHarness(backend, now: now)
        let id = event["id"]?.stringValue ?? ""
        #expect(await harness.result("calendar.create", event)?["event"]?["id"] == .string(id))
        let agenda = try #require(await harness.result("calendar.agenda", ["from": .string(from), "to": .string(to), "timeZone": "UTC"]))
        #expect(agenda["truncated"] == nil)
        let entries: [JSONValue] = (agenda["days"]?.arrayValue ?? []).flatMap { (day: JSONValue) -> [JSONValue] in day["events"]?.arrayValue ?? [] }
        return entries.filter { (entry: JSONValue) -> Bool in entry["id"]?.stringValue == id && entry["continuing"] != true }
            .compactMap { (entry: JSONValue) -> String? in entry["recurrenceId"]?.stringValue }
    }

    static func event(_ id: String, _ start: String, _ rule: JSONValue, overrides: JSONValue? = nil) -> JSONValue {
        var event: JSONObject = ["id": .string(id), "title": "t", "start": .string(start), "timeZone": "UTC", "recurrenceRules": [rule]]
        if let overrides { event["recurrenceOverrides"] = overrides }
        return .object(event)
    }

    static func days(_ days: String...) -> JSONValue { .array(days.map { ["day": .string($0)] }) }

    @Test("byWeekNo: RFC 5545's Monday of week 20 (1997-05-12, 1998-05-11, 1999-05-17)", arguments: CalendarBackend.allCases)
    func weekTwentyOfTheRFC(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "yearly", "byWeekNo": [20], "byDay": Self.days("mo")]
        let starts = try await Self.starts(Self.event("w20", "1997-05-12T09:00:00", rule), now: "1998-06-01T00:00:00Z",
                                           from: "1997-05-01", to: "1999-12-31", backend: backend)
        #expect(starts == ["1997-05-12T09:00:00", "1998-05-11T09:00:00", "1999-05-17T09:00:00"])
    }

    @Test("byWeekNo 52 with Thursday and Sunday: every day of week 52, also the ones in January and on 2028-12-31", arguments: CalendarBackend.allCases)
    func weekFiftyTwo(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "yearly", "byWeekNo": [52], "byDay": Self.days("th", "su")]
        let starts = try await Self.starts(Self.event("wk52", "2026-12-24T09:00:00", rule), from: "2026-12-01", to: "2029-08-20", backend: backend)
        #expect(starts == ["2026-12-24T09:00:00", "2026-12-27T09:00:00", "2027-12-30T09:00:00", "2028-01-02T09:00:00",
                           "2028-12-28T09:00:00", "2028-12-31T09:00:00"])
    }

    @Test("byWeekNo 1 and 53 with Monday: Mondays only (2026 has a week 53; week 1 of 2028 begins 2028-01-03)", arguments: CalendarBackend.allCases)
    func weeksOneAndFiftyThree(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "yearly", "byWeekNo": [1, 53], "byDay": Self.days("mo")]
        let starts = try await Self.starts(Self.event("wkmo", "2026-12-01T09:00:00", rule), from: "2026-12-01", to: "2029-08-20", backend: backend)
        #expect(starts == ["2026-12-01T09:00:00", "2026-12-28T09:00:00", "2027-01-04T09:00:00", "2028-01-03T09:00:00", "2029-01-01T09:00:00"])
    }

    @Test("byYearDay 60 in March: March 1st of common years; a leap year's day 60 is February 29th, not in March", arguments: CalendarBackend.allCases)
    func yearDayInMonth(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "yearly", "byYearDay": [60], "byMonth": ["3"]]
        let starts = try await Self.starts(Self.event("yd", "2027-03-01T09:00:00", rule), from: "2026-12-01", to: "2029-08-20", backend: backend)
        #expect(starts == ["2027-03-01T09:00:00", "2029-03-01T09:00:00"])
    }

    @Test("daily with byMonthDay -1: the last day of every month", arguments: CalendarBackend.allCases)
    func dailyLastDayOfMonth(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "daily", "byMonthDay": [-1], "count": 4]
        let starts = try await Self.starts(Self.event("dneg1", "2026-12-31T09:00:00", rule), from: "2026-12-01", to: "2027-12-31", backend: backend)
        #expect(starts == ["2026-12-31T09:00:00", "2027-01-31T09:00:00", "2027-02-28T09:00:00", "2027-03-31T09:00:00"])
    }

    @Test("weekly bySetPosition 1 of Monday and Tuesday: the Mondays", arguments: CalendarBackend.allCases)
    func weeklySetPosition(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "weekly", "byDay": Self.days("mo", "tu"), "bySetPosition": [1], "count": 4]
        let starts = try await Self.starts(Self.event("wsp", "2026-11-30T09:00:00", rule), from: "2026-11-28", to: "2027-01-31", backend: backend)
        #expect(starts == ["2026-11-30T09:00:00", "2026-12-07T09:00:00", "2026-12-14T09:00:00", "2026-12-21T09:00:00"])
    }

    @Test("monthly bySetPosition -1 over byHour 8 and 17: 17:00 only", arguments: CalendarBackend.allCases)
    func setPositionOverHours(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "monthly", "byMonthDay": [1], "byHour": [8, 17], "bySetPosition": [-1], "count": 3]
        let starts = try await Self.starts(Self.event("msp", "2026-12-01T17:00:00", rule), from: "2026-11-28", to: "2027-04-30", backend: backend)
        #expect(starts == ["2026-12-01T17:00:00", "2027-01-01T17:00:00", "2027-02-01T17:00:00"])
    }

    @Test("RFC 5545's third Tuesday, Wednesday or Thursday of the month, count 3: Sep 4, Oct 7, Nov 6", arguments: CalendarBackend.allCases)
    func monthlySetPositionOfTheRFC(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "monthly", "byDay": Self.days("tu", "we", "th"), "bySetPosition": [3], "count": 3]
        let starts = try await Self.starts(Self.event("tp", "1997-09-04T09:00:00", rule), now: "1998-06-01T00:00:00Z",
                                           from: "1997-09-01", to: "1998-12-31", backend: backend)
        #expect(starts == ["1997-09-04T09:00:00", "1997-10-07T09:00:00", "1997-11-06T09:00:00"])
    }

    @Test("count 3 whose start the rule does not make: the start counts as the first occurrence (RFC 5545, RFC 8984)", arguments: CalendarBackend.allCases)
    func startCountsTowardCount(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "monthly", "byMonthDay": [13], "count": 3]
        let starts = try await Self.starts(Self.event("c3", "2026-12-01T09:00:00", rule), from: "2026-11-28", to: "2029-08-20", backend: backend)
        #expect(starts == ["2026-12-01T09:00:00", "2026-12-13T09:00:00", "2027-01-13T09:00:00"])
    }

    @Test("RFC 5545's Friday the 13th: the start (a Tuesday) excluded as the RFC's EXDATE does, then every Friday the 13th",
          arguments: CalendarBackend.allCases)
    func fridayThe13thOfTheRFC(backend: CalendarBackend) async throws {
        let rule: JSONValue = ["frequency": "monthly", "byDay": Self.days("fr"), "byMonthDay": [13]]
        let event = Self.event("f13", "1997-09-02T09:00:00", rule, overrides: ["1997-09-02T09:00:00": ["excluded": true]])
        let starts = try await Self.starts(event, now: "1998-06-01T00:00:00Z", from: "1997-09-01", to: "2000-12-31", backend: backend)
        #expect(starts == ["1998-02-13T09:00:00", "1998-03-13T09:00:00", "1998-11-13T09:00:00", "1999-08-13T09:00:00", "2000-10-13T09:00:00"])
    }

    @Test("splitting a count rule whose start it does not make keeps the count: 3 before the split and after it, in all",
          arguments: CalendarBackend.allCases)
    func splitCountsTheStart(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2026-11-28T12:00:00Z")
        let rule: JSONValue = ["frequency": "monthly", "byMonthDay": [13], "count": 3]
        _ = await harness.result("calendar.create", Self.event("c3", "2026-12-01T09:00:00", rule))
        _ = await harness.result("calendar.update", ["id": "c3", "scope": "thisAndFollowing", "recurrenceId": "2026-12-13T09:00:00",
                                                     "patch": ["title": "later"]])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-28", "to": "2029-08-20", "timeZone": "UTC"]))
        let shown = (agenda["days"]?.arrayValue ?? []).flatMap { $0["events"]?.arrayValue ?? [] }.compactMap { $0["start"]?.stringValue }
        #expect(shown == ["2026-12-01T09:00:00", "2026-12-13T09:00:00", "2027-01-13T09:00:00"])
    }
}
