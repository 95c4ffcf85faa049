@testable import CalendarDomain
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// Expansion that input drives is bounded by the window and by count, and says where it stopped:
/// old rules cost what new ones do, a bounded agenda reports its cut, overrides without rules show,
/// and every occurrence a rule makes shows, also on a skipped day. (Issue 19, points 5, 7, 9, 10.)
@Suite("Calendar expansion bounds", .postgresStores)
struct CalendarExpansionBoundsTests {
    static func local(_ text: String) -> LocalDateTime { LocalDateTime(text) ?? LocalDateTime(seconds: 0) }

    /// The starts `cache` gives for `window`, and what filling it cost.
    static func expand(_ rule: RecurrenceRule, from start: String, _ window: ClosedRange<String>)
        -> (starts: [LocalDateTime], iterated: Int, bytes: Int) {
        let cache = OccurrenceCache()
        var starts: [LocalDateTime] = []
        RecurrenceExpansion.starts(of: rule, from: local(start), in: local(window.lowerBound)...local(window.upperBound), cache: cache) {
            starts.append($0)
            return true
        }
        return (starts, cache.iterated, cache.bytes)
    }

    @Test("a daily rule from 1900 costs a one-day window what the same rule from 2025 does", arguments: [
        RecurrenceRule(frequency: .daily),
        RecurrenceRule(frequency: .daily, interval: 3),
        RecurrenceRule(frequency: .weekly, byDay: [.init(day: .mo), .init(day: .th)]),
        RecurrenceRule(frequency: .daily, count: 5000),
        RecurrenceRule(frequency: .monthly, byMonthDay: [31], count: 5000),
    ])
    func oldRulesCostWhatNewOnesDo(rule: RecurrenceRule) {
        let old = Self.expand(rule, from: "1900-01-01T09:00:00", "2026-11-23T00:00:00"..."2026-11-23T23:59:59")
        let new = Self.expand(rule, from: "2025-01-01T09:00:00", "2026-11-23T00:00:00"..."2026-11-23T23:59:59")
        // A count rule may count its occurrences from its start (at most `maximumCount`), nothing more.
        let allowance = rule.count == nil || rule.fixedPeriodSeconds != nil ? 0 : RecurrenceRule.maximumCount
        // (The two starts fall differently on the window: a tenth and one occurrence more are allowed.)
        #expect(old.iterated <= new.iterated * 11 / 10 + 1 + allowance, "occurrences iterated for the 1900 rule")
        #expect(old.bytes <= new.bytes * 11 / 10 + 8 + allowance * 8, "bytes the cache keeps for the 1900 rule")
        #expect(old.bytes < 64 << 10)
    }

    /// Rules of every shape; the windowed expansion must give what iterating from the start gives.
    static let shapes: [RecurrenceRule] = [
        RecurrenceRule(frequency: .daily, interval: 3),
        RecurrenceRule(frequency: .weekly, interval: 2, byDay: [.init(day: .tu), .init(day: .sa)]),
        RecurrenceRule(frequency: .weekly, interval: 5),
        RecurrenceRule(frequency: .monthly, byMonthDay: [31]),
        RecurrenceRule(frequency: .monthly, interval: 7, byDay: [.init(day: .su, nthOfPeriod: -1)]),
        RecurrenceRule(frequency: .yearly, byMonthDay: [29], byMonth: ["2"]),
        RecurrenceRule(frequency: .yearly, interval: 3, byYearDay: [100, -1]),
        RecurrenceRule(frequency: .daily, byHour: [7, 19], byMinute: [0, 45]),
        RecurrenceRule(frequency: .daily, interval: 2, count: 3000),
        RecurrenceRule(frequency: .weekly, interval: 3, count: 400),
        RecurrenceRule(frequency: .weekly, byDay: [.init(day: .fr)], count: 4000),
        RecurrenceRule(frequency: .monthly, byDay: [.init(day: .mo, nthOfPeriod: 2)], until: local("2027-06-30T00:00:00")),
        RecurrenceRule(frequency: .daily, interval: 4, until: local("2026-12-01T10:00:00")),
    ]

    @Test("starting near the window gives the occurrences iterating from the start gives", arguments: shapes)
    func windowedIsComplete(rule: RecurrenceRule) {
        let start = Self.local("1987-01-31T09:30:00")
        for window in ["2026-11-01T00:00:00"..."2026-12-31T23:59:59", "2024-02-20T00:00:00"..."2024-03-10T00:00:00",
                       "1987-01-31T09:30:00"..."1987-03-01T00:00:00", "2030-01-01T00:00:00"..."2030-01-01T00:00:00"] {
            let bounds = Self.local(window.lowerBound)...Self.local(window.upperBound)
            var all: [LocalDateTime] = []
            _ = RecurrenceExpansion.iterate(rule, from: start, notBefore: start, through: bounds.upperBound, maximumSteps: 1_000_000) {
                all.append($0)
                return true
            }
            #expect(Self.expand(rule, from: start.description, window).starts == all.filter(bounds.contains), "\(rule.rruleText) in \(window)")
        }
    }

    @Test("a rule's first window iterates that window alone; later windows, near or far, are still complete", arguments: shapes)
    func laterWindowsOfOneCache(rule: RecurrenceRule) {
        let start = Self.local("1987-01-31T09:30:00")
        let cache = OccurrenceCache()
        let windows = ["2026-11-01T00:00:00"..."2026-11-30T23:59:59", "2026-12-01T00:00:00"..."2026-12-31T23:59:59",
                       "2026-10-15T00:00:00"..."2026-11-15T00:00:00", "2024-02-20T00:00:00"..."2024-03-10T00:00:00",
                       "2026-11-10T00:00:00"..."2026-11-12T00:00:00"]
        for (index, window) in windows.enumerated() {
            let bounds = Self.local(window.lowerBound)...Self.local(window.upperBound)
            var all: [LocalDateTime] = []
            _ = RecurrenceExpansion.iterate(rule, from: start, notBefore: start, through: bounds.upperBound, maximumSteps: 1_000_000) {
                all.append($0)
                return true
            }
            var starts: [LocalDateTime] = []
            RecurrenceExpansion.starts(of: rule, from: start, in: bounds, cache: cache) {
                starts.append($0)
                return true
            }
            let expected = all.filter(bounds.contains)
            #expect(starts == expected, "\(rule.rruleText) in \(window)")
            // A count rule without a fixed period is counted from its start; any other rule's first
            // window iterates no more than the window holds.
            if index == 0, rule.count == nil || rule.fixedPeriodSeconds != nil {
                #expect(cache.iterated <= expected.count + 1, "\(rule.rruleText): iterated for the first window")
            }
        }
    }

    @Test("the cache keeps a bounded number of bytes, however many rules it is asked for")
    func cacheIsBoundedInBytes() {
        let cache = OccurrenceCache()
        let window = Self.local("2026-11-23T00:00:00")...Self.local("2026-11-23T23:59:59")
        for minute in 0..<60 {
            let rule = RecurrenceRule(frequency: .daily, byHour: Array(0...23), byMinute: [minute])
            RecurrenceExpansion.starts(of: rule, from: Self.local("2026-01-01T00:00:00"), in: window, cache: cache) { _ in true }
            #expect(cache.bytes <= OccurrenceCache.maximumBytes)
        }
        #expect(cache.bytes > 0)
    }

    /// Every minute of every day, but only on February 30th: candidates that never pass. libical
    /// looked at each minute to the year 2582 within one call.
    static func neverPasses(count: Int? = nil) -> RecurrenceRule {
        RecurrenceRule(frequency: .daily, byMonthDay: [30], byMonth: ["2"], byHour: Array(0...23), byMinute: Array(0...59), count: count)
    }

    @Test("a rule whose candidates never pass is cut by the candidate budget: its end unknown, a window answered", arguments: [nil, 1])
    func candidatesThatNeverPass(count: Int?) {
        let rule = Self.neverPasses(count: count)
        let start = Self.local("2026-01-01T00:00:00")
        var seen = 0
        let outcome = RecurrenceExpansion.iterate(rule, from: start, notBefore: start, through: Self.local("2199-12-31T23:59:59"),
                                                  maximumSteps: 1_000_000) { _ in
            seen += 1
            return true
        }
        // libical yields the first start only when it passes the rule (the agenda adds it: RFC 5545).
        #expect(outcome == .stopped && seen == 0)
        #expect(RecurrenceExpansion.lastStart(of: rule, from: start) == nil, "a count not reached within the budget: no end known")
        #expect(EventSpan(.timed("never", "Never", "2026-01-01T00:00:00", rules: [Self.neverPasses(count: 2)])).lastDay == nil,
                "an end not found is no end: the event may show on any later day")
        // A month's window: without a count it starts there, looks at its own candidates alone and is
        // whole; with one it counts from the start, and the budget cuts it before the window (it says so).
        var none = true
        let window = RecurrenceExpansion.starts(of: rule, from: start, in: Self.local("2026-11-01T00:00:00")...Self.local("2026-11-30T23:59:59"),
                                                cache: OccurrenceCache()) { _ in
            none = false
            return true
        }
        #expect(none)
        #expect(count == nil ? window == .complete : window != .complete, "\(window)")
    }

    @Test("the expansions of one request share its budget: once one spends it, the next stops before looking at any candidate")
    func requestBudgetIsShared() {
        let rule = Self.neverPasses()
        let start = Self.local("2026-01-01T00:00:00"), end = Self.local("2199-12-31T23:59:59")
        let budget = ExpansionBudget(candidates: 60_000)
        let outcomes = RecurrenceExpansion.$requestBudget.withValue(budget) {
            (0..<2).map { _ in RecurrenceExpansion.iterate(rule, from: start, notBefore: start, through: end, maximumSteps: 1_000) { _ in true } }
        }
        #expect(outcomes == [.stopped, .stopped])
        #expect(budget.isSpent)
        // Without one, each iteration has its own candidate budget only.
        #expect(RecurrenceExpansion.requestBudget == nil)
    }

    @Test("rules that seldom pass make a day truncated for the work they take, said as such, not as too many occurrences",
          arguments: CalendarBackend.allCases)
    func seldomPassingRulesAreNamed(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        // The last minute of each February 29th (a hostile probe's rule): 1,440 candidates a day for one occurrence in four years.
        let rule: JSONValue = ["frequency": "daily", "count": 5000, "byMonth": ["2"], "byMonthDay": [29], "bySetPosition": [-1],
                               "byHour": .array((0...23).map { .integer(Int64($0)) }), "byMinute": .array((0...59).map { .integer(Int64($0)) })]
        let created = await harness.result("calendar.create", [
            "id": "rare", "title": "Rare", "start": "1900-01-01T00:00:00", "timeZone": "UTC", "recurrenceRules": [rule],
        ])
        #expect(created?["event"]?["id"] == "rare")
        let day = try #require(await harness.result("calendar.day", ["date": "2026-12-01"]))
        let reason = day["truncated"]?["reason"]?.stringValue ?? ""
        #expect(reason.contains("passes so seldom") && !reason.contains("more than"), "\(day)")
    }

    @Test("a count at the bound (5000) ends at its last start, not cut by the step bound")
    func countAtTheBound() {
        let start = Self.local("2026-01-01T09:00:00")
        #expect(RecurrenceExpansion.lastStart(of: RecurrenceRule(frequency: .daily, count: RecurrenceRule.maximumCount), from: start)
                == start.adding(seconds: Int64(RecurrenceRule.maximumCount - 1) * 86_400))
        #expect(RecurrenceExpansion.lastStart(of: RecurrenceRule(frequency: .weekly, byDay: [.init(day: .mo), .init(day: .fr)],
                                                                 count: RecurrenceRule.maximumCount), from: start) != nil)
    }

    @Test("an iteration whose task is cancelled stops between slices")
    func cancelledIterationStops() async {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return RecurrenceExpansion.iterate(Self.neverPasses(), from: Self.local("2026-01-01T00:00:00"), notBefore: Self.local("2026-01-02T00:00:00"),
                                               through: Self.local("2199-12-31T23:59:59"), maximumSteps: 1_000_000) { _ in true }
        }
        #expect(await task.value == .stopped)
    }

    @Test("creating such an event answers, and so do its agenda and day", arguments: CalendarBackend.allCases)
    func neverPassingEventAnswers(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let rule: JSONValue = ["frequency": "daily", "byMonth": ["2"], "byMonthDay": [30], "count": 1,
                               "byHour": .array((0...23).map { .integer(Int64($0)) }), "byMinute": .array((0...59).map { .integer(Int64($0)) })]
        let created = await harness.result("calendar.create", [
            "id": "never", "title": "Never", "start": "2026-11-01T00:00:00", "timeZone": "UTC", "duration": "PT1H", "recurrenceRules": [rule],
        ])
        #expect(created?["event"]?["id"] == "never")
        let day = try #require(await harness.result("calendar.day", ["date": "2026-11-24"]))
        #expect(day["events"] == [])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-01", "to": "2026-11-30"]))
        #expect(agenda["days"]?.arrayValue?.first?["events"]?.arrayValue?.count == 1, "the first start is an occurrence")
    }

    @Test("a thousand daily events from 1900 show once each on one day of 2026", arguments: CalendarBackend.allCases)
    func thousandOldDailies(backend: CalendarBackend) async throws {
        let events = (0..<1000).map { index in
            CalendarEvent.timed("old-\(index)", "Old \(index)", "1900-01-01T09:00:00", duration: "PT30M", rules: [RecurrenceRule(frequency: .daily)])
        }
        let harness = try await CalendarHarness(backend, events: events)
        let day = try #require(await harness.result("calendar.day", ["date": "2026-11-23"]))
        let entries = day["events"]?.arrayValue ?? []
        #expect(entries.count == 1000)
        #expect(Set(entries.compactMap { $0["recurrenceId"]?.stringValue }) == ["2026-11-23T09:00:00"])
        #expect(day["truncated"] == nil)
    }

    @Test("added occurrences of an event without rules show in the agenda and the day, and can be deleted", arguments: CalendarBackend.allCases)
    func overridesWithoutRules(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        _ = await harness.result("calendar.create", [
            "id": "dentist", "title": "Dentist", "start": "2026-11-24T10:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
            "recurrenceOverrides": ["2026-11-26T15:00:00": [:], "2026-11-28T11:00:00": ["title": "Dentist (check)"]],
        ])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-29"]))
        let days = agenda["days"]?.arrayValue ?? []
        #expect(days.map { $0["events"]?.arrayValue?.count ?? -1 } == [0, 1, 0, 1, 0, 1, 0])
        #expect(days[5]["events"]?.arrayValue?.first?["title"] == "Dentist (check)")
        #expect(days[3]["events"]?.arrayValue?.first?["recurrenceId"] == "2026-11-26T15:00:00")
        let day = try #require(await harness.result("calendar.day", ["date": "2026-11-26"]))
        #expect(day["events"]?.arrayValue?.map { $0["startsAt"] } == ["2026-11-26T14:00:00Z"])
        _ = await harness.result("calendar.delete", ["id": "dentist", "scope": "this", "recurrenceId": "2026-11-26T15:00:00"])
        let after = try #require(await harness.result("calendar.day", ["date": "2026-11-26"]))
        #expect(after["events"] == [])
    }

    @Test("an agenda past its occurrence bound says from which day it is cut; the days before are whole", arguments: CalendarBackend.allCases)
    func truncatedAgenda(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend) { $0.agendaOccurrenceLimit = 1000 }
        _ = await harness.result("calendar.create", [
            "id": "busy", "title": "Busy", "start": "2026-11-01T00:00:00", "timeZone": "Europe/Berlin", "duration": "PT1M",
            "recurrenceRules": [["frequency": "daily", "byHour": .array((0...23).map { .integer(Int64($0)) }), "byMinute": [0, 30]]],
        ])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-12-31"]))
        let days = agenda["days"]?.arrayValue ?? []
        let truncatedAt = try #require(agenda["truncated"]?["at"]?.stringValue, "\(days.map { $0["events"]?.arrayValue?.count ?? -1 })")
        #expect(agenda["truncated"]?["reason"]?.stringValue?.contains("1000") == true)
        let cutDay = try #require(days.firstIndex { $0["date"]?.stringValue == truncatedAt })
        #expect(cutDay >= 1000 / 48 - 3 && cutDay <= 1000 / 48, "the cut lies where the 1000th occurrence is")
        #expect(days[..<cutDay].allSatisfy { $0["events"]?.arrayValue?.count == 48 }, "days before the cut are whole")
        #expect(days[(cutDay + 1)...].allSatisfy { $0["events"] == [] })
        // One day is within the bound: whole, and not marked.
        let day = try #require(await harness.result("calendar.day", ["date": "2026-12-20"]))
        #expect(day["events"]?.arrayValue?.count == 48)
        #expect(day["truncated"] == nil)
        let short = try #require(await harness.result("calendar.agenda", ["from": "2026-12-20", "to": "2026-12-21"]))
        #expect(short["truncated"] == nil)
    }

    @Test("one-off events count against the occurrence bound too: past it the agenda says from which day it is cut", arguments: CalendarBackend.allCases)
    func truncatedByOneOffs(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend) { $0.agendaOccurrenceLimit = 20 }
        for day in 23...25 {
            for hour in 10..<20 {
                _ = await harness.result("calendar.create", [
                    "id": .string("e\(day)-\(hour)"), "title": "Slot", "start": .string("2026-11-\(day)T\(hour):00:00"),
                    "timeZone": "Europe/Berlin", "duration": "PT30M",
                ])
            }
        }
        _ = await harness.result("calendar.create", ["id": "holiday", "title": "Holiday", "start": "2026-11-25T00:00:00", "showWithoutTime": true, "duration": "P1D"])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-25"]))
        let days = agenda["days"]?.arrayValue ?? []
        let counts = days.map { $0["events"]?.arrayValue?.count ?? -1 }
        #expect(counts.reduce(0, +) == 20, "\(counts)")
        let truncatedAt = try #require(agenda["truncated"]?["at"]?.stringValue, "\(counts)")
        #expect(agenda["truncated"]?["reason"]?.stringValue?.contains("20") == true)
        let cutDay = try #require(days.firstIndex { $0["date"]?.stringValue == truncatedAt })
        #expect(days[..<cutDay].allSatisfy { $0["events"]?.arrayValue?.count == 10 }, "days before the cut are whole: \(counts)")
        // A repeating event read once the bound is spent (it starts after the one-off events: later in span
        // and in id order) and showing nothing in the range cuts nothing either.
        _ = await harness.result("calendar.create", [
            "id": "zz-later", "title": "Later", "start": "2026-11-26T09:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H",
            "recurrenceRules": [["frequency": "daily"]],
        ])
        // Two days hold 20: whole, and not marked.
        let short = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-24"]))
        #expect(short["truncated"] == nil)
        #expect(short["days"]?.arrayValue?.map { $0["events"]?.arrayValue?.count } == [10, 10])
    }

    @Test("every occurrence of a daily count 5 across Samoa's skipped 2011-12-30 shows; the 30th's is shifted like the clock",
          arguments: CalendarBackend.allCases)
    func apiaSkippedDay(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2011-12-01T00:00:00Z", zone: "Pacific/Apia")
        _ = await harness.result("calendar.create", [
            "id": "swim", "title": "Swim", "start": "2011-12-28T10:00:00", "timeZone": "Pacific/Apia", "duration": "PT1H",
            "recurrenceRules": [["frequency": "daily", "count": 5]],
        ])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2011-12-27", "to": "2012-01-03"]))
        let entries = (agenda["days"]?.arrayValue ?? []).flatMap { $0["events"]?.arrayValue ?? [] }
        #expect(entries.compactMap { $0["recurrenceId"]?.stringValue } ==
                ["2011-12-28T10:00:00", "2011-12-29T10:00:00", "2011-12-30T10:00:00", "2011-12-31T10:00:00", "2012-01-01T10:00:00"])
        // 10:00 on the skipped day is read with the offset before it (-10): 20:00Z, which is 10:00 on the 31st (+14).
        #expect(entries.compactMap { $0["startsAt"]?.stringValue } ==
                ["2011-12-28T20:00:00Z", "2011-12-29T20:00:00Z", "2011-12-30T20:00:00Z", "2011-12-30T20:00:00Z", "2011-12-31T20:00:00Z"])
        let day = try #require(await harness.result("calendar.day", ["date": "2011-12-31"]))
        #expect(day["events"]?.arrayValue?.count == 2)
    }
}
