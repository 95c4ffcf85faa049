import CalendarDomain
import Foundation
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// The calendar's methods through JSON-RPC, in process, on every backend; every answer schema-checked.
@Suite("Calendar methods", .postgresStores)
struct CalendarMethodsTests {
    static let weekly: JSONValue = [
        "id": "standup", "title": "Stand-up", "start": "2026-11-02T09:30:00", "timeZone": "Europe/Berlin", "duration": "PT15M",
        "recurrenceRules": [["frequency": "weekly", "byDay": [["day": "mo"], ["day": "we"]]]],
    ]

    @Test("an agenda lists every day, empty ones too, all-day first then by start", arguments: CalendarBackend.allCases)
    func agendaShape(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        _ = await harness.result("calendar.create", Self.weekly)
        _ = await harness.result("calendar.create", ["title": "Early", "start": "2026-11-25T08:00:00", "timeZone": "Europe/Berlin", "duration": "PT30M"])
        _ = await harness.result("calendar.create", ["title": "Holiday", "start": "2026-11-25T00:00:00", "showWithoutTime": true])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-29"]))
        let days = try #require(agenda["days"]?.arrayValue)
        #expect(days.map { $0["date"]?.stringValue ?? "" } == (23...29).map { "2026-11-\($0)" })
        #expect(days.map { $0["events"]?.arrayValue?.count ?? -1 } == [1, 0, 3, 0, 0, 0, 0])
        #expect(days[2]["events"]?.arrayValue?.map { $0["title"]?.stringValue ?? "" } == ["Holiday", "Early", "Stand-up"])
        #expect(agenda["timeZone"] == "Europe/Berlin")
        #expect(agenda["state"]?.stringValue?.hasPrefix("calendar-") == true)
    }

    @Test("an all-day event stays on its date in every zone", arguments: ["Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Los_Angeles", "UTC"])
    func allDayIsADate(zone: String) async throws {
        let harness = try await CalendarHarness(.memory)
        _ = await harness.result("calendar.create", ["title": "Holiday", "start": "2026-12-25T00:00:00", "showWithoutTime": true])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-12-24", "to": "2026-12-26", "timeZone": .string(zone)]))
        #expect(agenda["days"]?.arrayValue?.map { $0["events"]?.arrayValue?.count ?? -1 } == [0, 1, 0])
    }

    @Test("an event across midnight shows on both days, continuing on the second", arguments: CalendarBackend.allCases)
    func acrossMidnight(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        _ = await harness.result("calendar.create", ["title": "Release", "start": "2026-11-24T22:00:00", "timeZone": "Europe/Berlin", "duration": "PT4H"])
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-24", "to": "2026-11-25"]))
        let entries = (agenda["days"]?.arrayValue ?? []).compactMap { $0["events"]?.arrayValue?.first }
        #expect(entries.map { $0["continuing"] } == [false, true])
        #expect(entries.map { $0["endsAfterDay"] } == [true, false])
    }

    @Test("calendar.day answers one day with its length", arguments: CalendarBackend.allCases)
    func day(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend, now: "2027-03-01T00:00:00Z")
        let day = try #require(await harness.result("calendar.day", ["date": "2027-03-28"]))
        #expect(day["lengthMinutes"] == 1380)
        #expect(day["events"] == [])
    }

    @Test("bad ranges and zones are -32602 naming the field")
    func badAgendaParams() async throws {
        let harness = try await CalendarHarness(.memory)
        #expect(await harness.invalidField("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-22"]) == "to")
        #expect(await harness.invalidField("calendar.agenda", ["from": "2023-01-01", "to": "2026-11-22"]) == "from")
        #expect(await harness.invalidField("calendar.agenda", ["from": "2026-11-23", "to": "2029-09-01"]) == "to")
        #expect(await harness.invalidField("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-24", "timeZone": "Mars/Olympus"]) == "timeZone")
        #expect(await harness.invalidField("calendar.agenda", ["from": "2026-02-30", "to": "2026-11-24"]) == "from")
        #expect(await harness.invalidField("calendar.day", ["date": "23.11.2026"]) == "date")
        #expect(await harness.invalidField("calendar.day", ["date": "2026-11-23", "extra": 1]) == "extra")
    }

    @Test("invalid events are -32602 naming the member", arguments: [
        (["title": "x", "start": "2026-11-23T09:00:00", "duration": "-PT1H"], "duration"),
        (["title": "x", "start": "2026-11-23T09:00:00", "duration": "PT1H", "timeZone": "Europe/Berlim"], "timeZone"),
        (["title": "x", "start": "2026-11-23T09:00:00", "showWithoutTime": true], "start"),
        (["title": "x", "start": "2026-11-23T00:00:00", "showWithoutTime": true, "duration": "PT12H"], "duration"),
        (["title": "x", "start": "2026-11-23T00:00:00", "showWithoutTime": true, "timeZone": "Europe/Berlin"], "timeZone"),
        (["title": "x", "start": "2026-11-23 09:00"], "start"),
        (["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [["frequency": "weekly", "byMonthDay": [0]]]], "recurrenceRules[0].byMonthDay[0]"),
        (["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [["frequency": "hourly"]]], "recurrenceRules[0].frequency"),
        (["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [["frequency": "daily", "count": 2, "until": "2027-01-01T00:00:00"]]], "recurrenceRules[0].until"),
        (["title": "x", "start": "2026-11-23T09:00:00", "recurrenceOverrides": ["tomorrow": ["excluded": true]]], "recurrenceOverrides"),
    ] as [(JSONValue, String)])
    func invalidEvents(params: JSONValue, field: String) async throws {
        let harness = try await CalendarHarness(.memory)
        #expect(await harness.invalidField("calendar.create", params) == field)
        #expect(try await harness.calendar.allEvents().events.isEmpty)
    }

    /// Rules RFC 5545 §3.3.10 forbids, as JSCalendar and as an RRULE, with the member they are refused for.
    static let forbiddenRules: [(rule: JSONValue, rrule: String, member: String)] = [
        (["frequency": "daily", "byDay": [["day": "mo", "nthOfPeriod": 1]]], "FREQ=DAILY;BYDAY=1MO", "byDay[0].nthOfPeriod"),
        (["frequency": "weekly", "byDay": [["day": "tu"], ["day": "mo", "nthOfPeriod": -1]]], "FREQ=WEEKLY;BYDAY=TU,-1MO", "byDay[1].nthOfPeriod"),
        (["frequency": "weekly", "byMonthDay": [1]], "FREQ=WEEKLY;BYMONTHDAY=1", "byMonthDay"),
        (["frequency": "daily", "byYearDay": [1]], "FREQ=DAILY;BYYEARDAY=1", "byYearDay"),
        (["frequency": "weekly", "byYearDay": [100]], "FREQ=WEEKLY;BYYEARDAY=100", "byYearDay"),
        (["frequency": "monthly", "byYearDay": [-1]], "FREQ=MONTHLY;BYYEARDAY=-1", "byYearDay"),
        (["frequency": "daily", "byWeekNo": [1]], "FREQ=DAILY;BYWEEKNO=1", "byWeekNo"),
        (["frequency": "weekly", "byWeekNo": [1]], "FREQ=WEEKLY;BYWEEKNO=1", "byWeekNo"),
        (["frequency": "monthly", "byWeekNo": [-1]], "FREQ=MONTHLY;BYWEEKNO=-1", "byWeekNo"),
        (["frequency": "yearly", "byWeekNo": [20], "byDay": [["day": "mo", "nthOfPeriod": 1]]], "FREQ=YEARLY;BYWEEKNO=20;BYDAY=1MO", "byDay[0].nthOfPeriod"),
    ]

    @Test("a rule RFC 5545 forbids (an nth weekday when not monthly or yearly, byMonthDay weekly, byYearDay or byWeekNo not yearly) is -32602 naming the member on create and update, and an import error")
    func rulesRFC5545Forbids() async throws {
        let harness = try await CalendarHarness(.memory)
        _ = await harness.result("calendar.create", ["id": "plain", "title": "plain", "start": "2026-11-23T09:00:00"])
        for (rule, _, member) in Self.forbiddenRules {
            #expect(await harness.invalidField("calendar.create", ["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [rule]])
                    == "recurrenceRules[0].\(member)", "\(rule)")
            #expect(await harness.invalidField("calendar.update", ["id": "plain", "patch": ["recurrenceRules": [["frequency": "daily"], rule]]])
                    == "patch.recurrenceRules[1].\(member)", "\(rule)")
        }
        #expect(try await harness.calendar.allEvents().events.map(\.id) == ["plain"])
        #expect(try await harness.calendar.event(id: "plain")?.recurrenceRules == nil)
        let ics = CalendarImportProblemsTests.calendar(Self.forbiddenRules.enumerated().map { index, item in
            CalendarImportProblemsTests.event("rule-\(index)", "RRULE:\(item.rrule)\r\n")
        })
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 0)
        let reasons = (imported["errors"]?.arrayValue ?? []).map { $0["reason"]?.stringValue ?? "" }
        #expect(reasons.count == Self.forbiddenRules.count, "\(reasons)")
        for (reason, item) in zip(reasons, Self.forbiddenRules) {
            // libical writes BYDAY in its own order: the member, not its position.
            let member = item.member.prefix { $0 != "[" }, part = item.member.split(separator: ".").last ?? ""
            #expect(reason.hasPrefix("recurrenceRules[0].\(member)") && reason.contains("\(part): expected ")
                    && reason.hasSuffix("; the event is not imported"), "\(reason)")
        }
    }

    @Test("what RFC 5545 allows is taken: an nth weekday monthly and yearly, byWeekNo with plain weekdays, byYearDay yearly, byMonthDay monthly and daily")
    func rulesRFC5545Allows() async throws {
        let harness = try await CalendarHarness(.memory)
        let rules: [JSONValue] = [
            ["frequency": "monthly", "byDay": [["day": "mo", "nthOfPeriod": -1]]],
            ["frequency": "yearly", "byDay": [["day": "mo", "nthOfPeriod": 20]]],
            ["frequency": "yearly", "byWeekNo": [20], "byDay": [["day": "mo"]]],
            ["frequency": "yearly", "byYearDay": [100]],
            ["frequency": "monthly", "byMonthDay": [1]],
            ["frequency": "daily", "byMonthDay": [1]],
            ["frequency": "weekly", "byDay": [["day": "mo"]]],
        ]
        for rule in rules {
            let created = await harness.result("calendar.create", ["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [rule]])
            #expect(created?["created"] == true, "\(rule)")
        }
    }

    @Test("ids that differ only in Unicode normalisation are two events on every backend, compared by their bytes as the stores compare them",
          arguments: CalendarBackend.allCases)
    func idsComparedByBytes(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        // JSON strings compare as Swift strings (canonical equivalence): compare bytes.
        func bytes(_ value: JSONValue?) -> [UInt8] { Array((value?.stringValue ?? "").utf8) }
        let start = try await harness.calendar.state()
        let first = await harness.result("calendar.create", ["id": .string(composed), "title": "composed", "start": "2026-11-23T09:00:00"])
        let second = await harness.result("calendar.create", ["id": .string(decomposed), "title": "decomposed", "start": "2026-11-23T10:00:00"])
        #expect(first?["created"] == true && second?["created"] == true)
        #expect(bytes(second?["event"]?["id"]) == Array(decomposed.utf8))
        #expect(try await harness.calendar.allEvents().events.map { Array($0.id.utf8) } == [Array(decomposed.utf8), Array(composed.utf8)])
        let day = await harness.result("calendar.day", ["date": "2026-11-23"])?["events"]?.arrayValue ?? []
        #expect(day.map { bytes($0["title"]) } == [Array("composed".utf8), Array("decomposed".utf8)])
        #expect(day.map { bytes($0["id"]) } == [Array(composed.utf8), Array(decomposed.utf8)])
        let changes = await harness.result("calendar.changes", ["sinceState": .string(start)])
        #expect((changes?["created"]?.arrayValue ?? []).map { bytes($0) } == [Array(composed.utf8), Array(decomposed.utf8)])

        _ = await harness.result("calendar.update", ["id": .string(decomposed), "patch": ["title": "changed"]])
        #expect(bytes(await harness.result("calendar.get", ["id": .string(composed)])?["event"]?["title"]) == Array("composed".utf8))
        _ = await harness.result("calendar.delete", ["id": .string(decomposed)])
        #expect(bytes(await harness.result("calendar.get", ["id": .string(composed)])?["event"]?["title"]) == Array("composed".utf8))
        #expect(await harness.call("calendar.get", ["id": .string(decomposed)]).error?["code"] == -32004)

        let ics = CalendarImportProblemsTests.calendar([CalendarImportProblemsTests.event("uid-\(composed)"),
                                                        CalendarImportProblemsTests.event("uid-\(decomposed)")])
        let imported = await harness.result("calendar.import", ["ics": .string(ics)])
        #expect(imported?["created"] == 2 && imported?["errors"] == [], "\(imported ?? .null)")
    }

    @Test("a by* list longer than libical holds is -32602 naming it, as Schemas/ says; 100,000 byDay and 40,000 locations are refused by their count")
    func byListsAreBounded() async throws {
        let harness = try await CalendarHarness(.memory)
        let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/components/CalendarRecurrenceRule.json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: schemaFile)) as? [String: Any]
        let properties = schema?["properties"] as? [String: Any]
        for (member, maximum) in RecurrenceRule.maximumItems {
            #expect((properties?[member] as? [String: Any])?["maxItems"] as? Int == maximum, "\(member)")
            let item: JSONValue = member == "byDay" ? ["day": "mo"] : member == "byMonth" ? "1" : 1
            func rule(_ count: Int) -> JSONValue {
                var rule: JSONObject = ["frequency": "yearly", member: .array(Array(repeating: item, count: count))]
                if member == "bySetPosition" { rule["byMonth"] = ["1"] }  // a set position needs another by* part
                return .object(rule)
            }
            #expect(await harness.invalidField("calendar.create", ["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [rule(maximum + 1)]])
                    == "recurrenceRules[0].\(member)")
            #expect(await harness.result("calendar.create", ["title": "x", "start": "2026-11-23T09:00:00", "recurrenceRules": [rule(maximum)]])?["created"] == true,
                    "\(member)")
        }
        let days: JSONValue = .array(Array(repeating: ["day": "mo"], count: 100_000))
        #expect(await harness.invalidField("calendar.create", ["title": "x", "start": "2026-11-23T09:00:00",
                                                              "recurrenceRules": [["frequency": "weekly", "byDay": days]]]) == "recurrenceRules[0].byDay")
        var locations = JSONObject()
        for index in 0..<40_000 { locations["l\(index)"] = ["name": "a"] }
        #expect(await harness.invalidField("calendar.create", ["title": "x", "start": "2026-11-23T09:00:00", "locations": .object(locations)]) == "locations")
    }

    @Test("a create retried with the same id stores once", arguments: CalendarBackend.allCases)
    func idempotentCreate(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let first = try #require(await harness.result("calendar.create", Self.weekly))
        let second = try #require(await harness.result("calendar.create", Self.weekly))
        #expect(first["created"] == true)
        #expect(second["created"] == false)
        #expect(second["state"] == first["state"])
    }

    @Test("updating one occurrence records an override; the others keep their time", arguments: CalendarBackend.allCases)
    func updateThis(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        _ = await harness.result("calendar.create", Self.weekly)
        let updated = try #require(await harness.result("calendar.update", [
            "id": "standup", "scope": "this", "recurrenceId": "2026-11-25T09:30:00", "patch": ["start": "2026-11-25T11:00:00", "title": "Moved"],
        ]))
        #expect(updated["event"]?["recurrenceOverrides"]?["2026-11-25T09:30:00"]?["start"] == "2026-11-25T11:00:00")
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-23", "to": "2026-11-25"]))
        let titles = (agenda["days"]?.arrayValue ?? []).map { ($0["events"]?.arrayValue ?? []).map { $0["startsAt"]?.stringValue ?? "" } }
        #expect(titles == [["2026-11-23T08:30:00Z"], [], ["2026-11-25T10:00:00Z"]])
        #expect(await harness.invalidField("calendar.update", [
            "id": "standup", "scope": "this", "recurrenceId": "2026-11-24T09:30:00", "patch": ["title": "Not an occurrence"],
        ]) == "recurrenceId")
        #expect(await harness.invalidField("calendar.update", [
            "id": "standup", "scope": "this", "recurrenceId": "2026-11-30T09:30:00", "patch": ["timeZone": "UTC"],
        ]) == "patch.timeZone")
    }

    @Test("a recurrenceId without scope (all, the default) is -32602 naming recurrenceId, and the series is untouched", arguments: CalendarBackend.allCases)
    func recurrenceIdNeedsAScope(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        _ = await harness.result("calendar.create", Self.weekly)
        #expect(await harness.invalidField("calendar.delete", ["id": "standup", "recurrenceId": "2026-11-25T09:30:00"]) == "recurrenceId")
        #expect(await harness.invalidField("calendar.update", [
            "id": "standup", "scope": "all", "recurrenceId": "2026-11-25T09:30:00", "patch": ["title": "Every one"],
        ]) == "recurrenceId")
        let event = try #require(await harness.result("calendar.get", ["id": "standup"]))
        #expect(event["event"]?["title"] == Self.weekly["title"], "\(event)")
    }

    @Test("updating this and following splits the event; changes report both", arguments: CalendarBackend.allCases)
    func updateThisAndFollowing(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let created = try #require(await harness.result("calendar.create", Self.weekly))
        let updated = try #require(await harness.result("calendar.update", [
            "id": "standup", "scope": "thisAndFollowing", "recurrenceId": "2026-12-02T09:30:00", "patch": ["title": "New stand-up"],
        ]))
        #expect(updated["event"]?["recurrenceRules"]?.arrayValue?.first?["until"] == "2026-12-02T09:29:59")
        let newID = try #require(updated["created"]?["id"]?.stringValue)
        #expect(updated["created"]?["start"] == "2026-12-02T09:30:00")
        let agenda = try #require(await harness.result("calendar.agenda", ["from": "2026-11-30", "to": "2026-12-02"]))
        let titles = (agenda["days"]?.arrayValue ?? []).flatMap { ($0["events"]?.arrayValue ?? []).map { $0["title"]?.stringValue ?? "" } }
        #expect(titles == ["Stand-up", "New stand-up"])
        let changes = try #require(await harness.result("calendar.changes", ["sinceState": created["state"] ?? .null]))
        #expect(changes["created"] == [.string(newID)])
        #expect(changes["updated"] == ["standup"])
    }

    @Test("this and following from an occurrence an override adds before the start: the whole event when it is the earliest, else -32602 naming recurrenceId; never a trap",
          arguments: CalendarBackend.allCases)
    func thisAndFollowingBeforeStart(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        // Five daily occurrences from 10 March, and two added before them (1 and 5 March).
        _ = await harness.result("calendar.create", [
            "id": "early", "title": "Early", "start": "2026-03-10T09:00:00",
            "recurrenceRules": [["frequency": "daily", "count": 5]],
            "recurrenceOverrides": ["2026-03-01T09:00:00": [:], "2026-03-05T09:00:00": ["title": "Added"]],
        ])
        for method in ["calendar.update", "calendar.delete"] {
            var params: JSONObject = ["id": "early", "scope": "thisAndFollowing", "recurrenceId": "2026-03-05T09:00:00"]
            if method == "calendar.update" { params["patch"] = ["title": "x"] }
            #expect(await harness.invalidField(method, .object(params)) == "recurrenceId", "\(method)")
        }
        // From the earliest one on: the whole event.
        let updated = try #require(await harness.result("calendar.update", [
            "id": "early", "scope": "thisAndFollowing", "recurrenceId": "2026-03-01T09:00:00", "patch": ["title": "Renamed"],
        ]))
        #expect(updated["event"]?["title"] == "Renamed" && updated["created"] == nil)
        let deleted = try #require(await harness.result("calendar.delete", ["id": "early", "scope": "thisAndFollowing", "recurrenceId": "2026-03-01T09:00:00"]))
        #expect(deleted["deleted"] == true)
    }

    @Test("deleting one occurrence excludes it; deleting the event destroys it", arguments: CalendarBackend.allCases)
    func delete(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        _ = await harness.result("calendar.create", Self.weekly)
        let one = try #require(await harness.result("calendar.delete", ["id": "standup", "scope": "this", "recurrenceId": "2026-11-23T09:30:00"]))
        #expect(one["deleted"] == false)
        #expect(one["event"]?["recurrenceOverrides"]?["2026-11-23T09:30:00"] == ["excluded": true])
        let day = try #require(await harness.result("calendar.day", ["date": "2026-11-23"]))
        #expect(day["events"] == [])
        let all = try #require(await harness.result("calendar.delete", ["id": "standup"]))
        #expect(all["deleted"] == true)
        let missing = await harness.call("calendar.get", ["id": "standup"])
        #expect(missing.error?["code"] == -32004)
        let gone = await harness.call("calendar.delete", ["id": "standup"])
        #expect(gone.error?["code"] == -32004)
        #expect(gone.error?["data"]?["field"] == "id")
    }

    @Test("zone names: current IANA names ICU lists under older ones are taken, and the tz database's names without a slash; ICU's own ids are not",
          arguments: [("Asia/Kolkata", true), ("Europe/Kyiv", true), ("Asia/Calcutta", true), ("Etc/GMT+5", true), ("UTC", true),
                      ("EST5EDT", true), ("CET", true), ("PST8PDT", true), ("Zulu", true), ("NZ-CHAT", true),
                      ("GMT+5", false), ("PST", false), ("IST", false), ("Factory", false), ("cet", false),
                      ("Europe/Berlim", false), ("europe/berlin", false), ("Europe//Berlin", false)])
    func zoneNames(zone: String, known: Bool) async throws {
        let harness = try await CalendarHarness(.memory)
        let outcome = await harness.call("calendar.day", ["date": "2026-11-23", "timeZone": .string(zone)])
        #expect((outcome.result != nil) == known)
    }

    @Test("a tz database name without a slash keeps its rules: EST5EDT is UTC-4 in July and UTC-5 in January")
    func zoneWithoutSlash() async throws {
        let harness = try await CalendarHarness(.memory)
        for (start, instant) in [("2026-07-01T08:00:00", "2026-07-01T12:00:00Z"), ("2026-01-05T08:00:00", "2026-01-05T13:00:00Z")] {
            let created = try #require(await harness.result("calendar.create", ["title": "Call", "start": .string(start), "timeZone": "EST5EDT"]))
            #expect(created["event"]?["timeZone"] == "EST5EDT")
            let date = String(start.prefix(10))
            let day = try #require(await harness.result("calendar.day", ["date": .string(date), "timeZone": "UTC"]))
            #expect(day["events"]?.arrayValue?.first?["startsAt"] == .string(instant))
        }
    }

    @Test("a floating event is at its wall time in the agenda's zone")
    func floating() async throws {
        let harness = try await CalendarHarness(.memory)
        _ = await harness.result("calendar.create", ["title": "Vitamins", "start": "2026-11-23T08:00:00"])
        for (zone, instant) in [("Europe/Berlin", "2026-11-23T07:00:00Z"), ("Asia/Tokyo", "2026-11-22T23:00:00Z")] {
            let day = try #require(await harness.result("calendar.day", ["date": "2026-11-23", "timeZone": .string(zone)]))
            #expect(day["events"]?.arrayValue?.first?["startsAt"] == .string(instant))
        }
    }
}
