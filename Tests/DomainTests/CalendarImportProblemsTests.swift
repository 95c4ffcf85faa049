import CalendarDomain
import Foundation
import Jansson
import SwitchboardCore
import SwitchboardHost
import Testing

/// What an iCalendar import cannot take is said, never lost unsaid: a rule libical cannot read, a
/// VEVENT without END, a text that is no iCalendar, more dates than one line holds; and what is said
/// names positions and kinds of problems, never the file's text or UIDs.
@Suite("Calendar iCalendar import problems", .postgresStores)
struct CalendarImportProblemsTests {
    /// A calendar of `events` (each the lines between BEGIN:VEVENT and END:VEVENT).
    static func calendar(_ events: [String]) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + events.map { "BEGIN:VEVENT\r\n\($0)END:VEVENT\r\n" }.joined()
            + "END:VCALENDAR\r\n"
    }

    /// A VEVENT's lines: UID, DTSTAMP, DTSTART, DURATION and SUMMARY (the UID), each unless `extra` has it, then `extra`.
    static func event(_ uid: String, _ extra: String = "") -> String {
        ["UID:\(uid)", "DTSTAMP:20261101T120000Z", "DTSTART:20261123T090000Z", "DURATION:PT1H", "SUMMARY:\(uid)"]
            .filter { line in !extra.hasPrefix(line.prefix { $0 != ":" }) && !extra.contains("\n" + line.prefix { $0 != ":" }) }
            .map { $0 + "\r\n" }.joined() + extra
    }

    @Test("an RRULE libical cannot read is an error naming the VEVENT and RRULE; that event is not imported, the others are",
          arguments: CalendarBackend.allCases.flatMap { backend in
              ["FREQ=DAILY;COUNT=99999999999999999999", "FREQ=DAILY;COUNT=abc", "GARBAGE", "COUNT=5"].map { (backend, $0) }
          })
    func unreadableRule(backend: CalendarBackend, rule: String) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Self.calendar([Self.event("before"), Self.event("ruled", "RRULE:\(rule)\r\n"), Self.event("after")])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 2)
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.count == 1)
        #expect(errors.first?["index"] == 1)
        #expect(errors.first?["line"] == .integer(Int64(CalendarICalendarTests.lines(of: ics, holding: "BEGIN:VEVENT")[1])))
        let reason = errors.first?["reason"]?.stringValue ?? ""
        #expect(reason.contains("RRULE") && reason.hasSuffix("the event is not imported"), "\(reason)")
        #expect(await harness.call("calendar.get", ["id": "ruled"]).error?["code"] == -32004)
        #expect(await harness.result("calendar.get", ["id": "after"])?["event"]?["title"] == "after")
    }

    @Test("an RRULE number libical would wrap (INTERVAL=65543 read as 7, COUNT=4294967297 as 1, BYDAY=257MO as 1MO) or a BY* list longer than it keeps refuses its event naming the part; one the rules refuse keeps its reason",
          arguments: CalendarBackend.allCases)
    func wrappingRuleNumbers(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let refused = "is out of range; the event is not imported"
        let cases: [(rule: String, reason: String)] = [
            ("FREQ=DAILY;INTERVAL=65543;COUNT=3", "its RRULE INTERVAL \(refused)"),
            ("FREQ=DAILY;INTERVAL=65537", "its RRULE INTERVAL \(refused)"),
            ("FREQ=DAILY;INTER\r\n VAL=6554\r\n 3", "its RRULE INTERVAL \(refused)"),
            ("FREQ=DAILY;COUNT=4294967297", "its RRULE COUNT \(refused)"),
            ("FREQ=DAILY;COUNT=99999999999999999999", "its RRULE COUNT \(refused)"),
            ("FREQ=MONTHLY;BYDAY=256MO", "its RRULE BYDAY ordinal \(refused)"),
            ("FREQ=MONTHLY;BYDAY=MO,257MO", "its RRULE BYDAY ordinal \(refused)"),
            ("FREQ=MONTHLY;BYDAY=999MO", "its RRULE BYDAY ordinal \(refused)"),
            ("FREQ=MONTHLY;BYDAY=-257MO", "its RRULE BYDAY ordinal \(refused)"),
            ("FREQ=MONTHLY;BYDAY=+100MO", "its RRULE BYDAY ordinal \(refused)"),
            ("FREQ=MONTHLY;BYMONTHDAY=1,65537", "its RRULE BYMONTHDAY \(refused)"),
            ("FREQ=YEARLY;BYSETPOS=-65535;BYMONTH=1", "its RRULE BYSETPOS \(refused)"),
            // Longer than libical keeps: it refused the rule without a reason.
            ("FREQ=MONTHLY;BYMONTHDAY=" + ((1...31).map(String.init) + (1...31).map { "-\($0)" }).joined(separator: ","),
             "its RRULE BYMONTHDAY lists 62 values, more than the 31 a rule may have; the event is not imported"),
            ("FREQ=DAILY;BYHOUR=" + Array(repeating: "0", count: 25).joined(separator: ","),
             "its RRULE BYHOUR lists 25 values, more than the 24 a rule may have; the event is not imported"),
            ("FREQ=DAILY;INTERVAL=1001", "recurrenceRules[0].interval: expected integer 1...1000; the event is not imported"),
            ("FREQ=DAILY;COUNT=5001", "recurrenceRules[0].count: expected integer 1...5000; the event is not imported"),
            ("FREQ=MONTHLY;BYDAY=54MO", "recurrenceRules[0].byDay[0].nthOfPeriod: expected integer -53...53, not 0; the event is not imported"),
        ]
        let ics = Self.calendar(cases.enumerated().map { Self.event("rule-\($0.offset)", "RRULE:\($0.element.rule)\r\n") }
                                + [Self.event("fine", "RRULE:FREQ=MONTHLY;INTERVAL=0002;BYDAY=-01MO,+5TU;COUNT=0005000\r\n")])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1, "\(imported)")
        let lines = CalendarICalendarTests.lines(of: ics, holding: "BEGIN:VEVENT")
        #expect(imported["errors"]?.arrayValue ?? [] == cases.enumerated().map { index, item -> JSONValue in
            ["index": .integer(Int64(index)), "line": .integer(Int64(lines[index])), "reason": .string(item.reason)]
        })
        let rule = await harness.result("calendar.get", ["id": "fine"])?["event"]?["recurrenceRules"]?.arrayValue?.first
        #expect(rule?["interval"] == 2 && rule?["count"] == 5000 && rule?["byDay"]?.arrayValue?.last?["nthOfPeriod"] == 5, "\(rule ?? .null)")
    }

    @Test("a time a VTIMEZONE's offset moves past 1900...2199 is refused, naming where: stored it could never be read again",
          arguments: CalendarBackend.allCases)
    func zoneOffsetPastTheYears(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let zones = ["BEGIN:VTIMEZONE\r\nTZID:Far\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+1400\r\n"
                     + "TZOFFSETTO:+1400\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n",
                     "BEGIN:VTIMEZONE\r\nTZID:West\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:-1200\r\n"
                     + "TZOFFSETTO:-1200\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"]
        let events = [Self.event("early", "DTSTART;TZID=Far:19000101T100000\r\n"),
                      Self.event("late", "DTSTART;TZID=West:21991231T200000\r\n"),
                      Self.event("fine", "DTSTART;TZID=Far:20261123T100000\r\nRRULE:FREQ=DAILY\r\n"),
                      Self.event("fine", "RECURRENCE-ID;TZID=West:21991231T200000\r\nDTSTART;TZID=West:21991231T210000\r\n")]
        let ics = Self.calendar(events).replacingOccurrences(of: "PRODID:-//test//EN\r\n", with: "PRODID:-//test//EN\r\n" + zones.joined())
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1, "\(imported)")
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [0, 1, 3], "\(errors)")
        #expect(errors.prefix(2).allSatisfy { $0["reason"]?.stringValue?.hasPrefix("start: expected a local date-time") == true }, "\(errors)")
        #expect(errors.last?["reason"]?.stringValue?.hasPrefix("RECURRENCE-ID: expected a local date-time") == true, "\(errors)")
        #expect(await harness.call("calendar.get", ["id": "early"]).error?["code"] == -32004)
        let fine = await harness.result("calendar.get", ["id": "fine"])?["event"]
        #expect(fine?["start"] == "2026-11-22T20:00:00" && fine?["recurrenceOverrides"] == nil, "\(fine ?? .null)")
        #expect(await harness.result("calendar.export", [:])?["ics"] != nil, "the calendar still exports")
    }

    @Test("a VTIMEZONE whose offset is no offset (libical reads abc as +0000) or beyond ±18 hours (+999999 as 99 hours) is not kept: its events are reported",
          arguments: ["+999999", "-1900", "+1801", "abc", "+01", ""])
    func offsetBeyondEighteenHours(offset: String) async throws {
        let harness = try await CalendarHarness(.memory)
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Odd\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0100\r\n"
            + "TZOFFSETTO:\(offset)\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let ics = Self.calendar([Self.event("odd", "DTSTART;TZID=Odd:20261123T100000\r\n"), Self.event("plain")])
            .replacingOccurrences(of: "PRODID:-//test//EN\r\n", with: "PRODID:-//test//EN\r\n" + zone)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [0] && errors.first?["reason"]?.stringValue?.contains("unreadable or beyond ±18 hours") == true,
                "\(errors)")
        #expect(await harness.call("calendar.get", ["id": "odd"]).error?["code"] == -32004)
    }

    @Test("a VTIMEZONE with no STANDARD or DAYLIGHT part (libical reads it as UTC) is not kept: its events are reported",
          arguments: CalendarBackend.allCases)
    func zoneWithoutObservances(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let zones = "BEGIN:VTIMEZONE\r\nTZID:Office\r\nEND:VTIMEZONE\r\n"
            + "BEGIN:VTIMEZONE\r\nTZID:Home\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0100\r\n"
            + "TZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let ics = Self.calendar([Self.event("office", "DTSTART;TZID=Office:20261123T100000\r\n"),
                                 Self.event("home", "DTSTART;TZID=Home:20261123T100000\r\n"), Self.event("plain")])
            .replacingOccurrences(of: "PRODID:-//test//EN\r\n", with: "PRODID:-//test//EN\r\n" + zones)
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 2)
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [0] && errors.first?["reason"]?.stringValue?.contains("no STANDARD or DAYLIGHT part") == true,
                "\(errors)")
        #expect(await harness.call("calendar.get", ["id": "office"]).error?["code"] == -32004)
        let home = await harness.result("calendar.get", ["id": "home"])?["event"]
        #expect(home?["start"] == "2026-11-23T09:00:00" && home?["timeZone"] == "UTC", "\(home ?? .null)")
    }

    @Test("a VEVENT without END is reported by position and line; the valid events before and after it are imported",
          arguments: CalendarBackend.allCases)
    func veventWithoutEnd(backend: CalendarBackend) async throws {
        let header = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        let valid = { (uid: String) in "BEGIN:VEVENT\r\n" + Self.event(uid) + "END:VEVENT\r\n" }
        let broken = "BEGIN:VEVENT\r\n" + Self.event("broken")
        let cases: [(text: String, created: Int, reason: String)] = [
            (header + valid("one") + broken + valid("two") + "END:VCALENDAR\r\n", 2, "no END:VEVENT before the next BEGIN:VEVENT"),
            (header + valid("one") + broken + "END:VCALENDAR\r\n", 1, "no END:VEVENT"),
            (header + valid("one") + broken, 1, "no END:VEVENT before the end of the file"),
        ]
        for (text, created, reason) in cases {
            let harness = try await CalendarHarness(backend)
            let imported = try #require(await harness.result("calendar.import", ["ics": .string(text)]))
            #expect(imported["created"] == .integer(Int64(created)))
            let errors = imported["errors"]?.arrayValue ?? []
            #expect(errors.count == 1)
            #expect(errors.first?["index"] == 1)
            #expect(errors.first?["line"] == .integer(Int64(CalendarICalendarTests.lines(of: text, holding: "BEGIN:VEVENT")[1])))
            #expect(errors.first?["reason"]?.stringValue == reason + "; the event is not imported")
            #expect(await harness.result("calendar.get", ["id": "one"])?["event"]?["title"] == "one")
            #expect(await harness.call("calendar.get", ["id": "broken"]).error?["code"] == -32004)
        }
    }

    @Test("BEGIN and END lines with parameters, in lower case or folded begin and end their components", arguments: CalendarBackend.allCases)
    func unusualBeginAndEnd(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
            + "BEGIN;X-A=1:VEVENT\r\n" + Self.event("parameters") + "END;X-B=\"a:b\":VEVENT\r\n"
            + "begin:vevent\r\n" + Self.event("lower") + "end:vevent\r\n"
            + "BEG\r\n IN:VEV\r\n\tENT\r\n" + Self.event("folded") + "END:VEVENT \r\n"
            + "END;X-C=1:VCALENDAR\r\nEND:VCALENDAR\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 3)
        #expect(imported["errors"] == [])
    }

    @Test("a UTF-8 byte order mark before BEGIN:VCALENDAR is skipped, in an inline ics and in a file")
    func byteOrderMark() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calendar-bom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let harness = try await CalendarHarness(.memory, readRoots: ReadRoots(resolving: [folder.path]))
        let ics = "\u{FEFF}" + Self.calendar([Self.event("bom")])
        let inline = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(inline["created"] == 1 && inline["errors"] == [], "\(inline)")
        let file = folder.appendingPathComponent("bom.ics")
        try Data(ics.utf8).write(to: file)
        let fromFile = try #require(await harness.result("calendar.import", ["path": .string(file.path)]))
        #expect(fromFile["errors"] == [] && fromFile["unchanged"] == 1, "\(fromFile)")
        #expect(await harness.result("calendar.get", ["id": "bom"])?["event"]?["title"] == "bom")
    }

    @Test("JSON, plain text or a lone VEVENT is no iCalendar file: -32602 naming ics or path, the text not quoted")
    func notICalendar() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calendar-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let harness = try await CalendarHarness(.memory, readRoots: ReadRoots(resolving: [folder.path]))
        for text in ["{\"events\": [\"secret-token-1\"]}", "secret-token-1 is plain text\nwith lines\n", "",
                     "BEGIN:VEVENT\r\nUID:secret-token-1\r\nDTSTART:20261123T090000Z\r\nEND:VEVENT\r\n"] {
            let outcome = await harness.call("calendar.import", ["ics": .string(text)])
            #expect(outcome.error?["code"] == -32602)
            #expect(outcome.error?["data"]?["field"] == "ics")
            #expect(!outcome.response.jsonText().contains("secret-token-1"))
            let file = folder.appendingPathComponent("file.json")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let fromFile = await harness.call("calendar.import", ["path": .string(file.path)])
            #expect(fromFile.error?["data"]?["field"] == "path")
            #expect(!fromFile.response.jsonText().contains("secret-token-1"))
        }
        #expect(try await harness.calendar.allEvents().events.isEmpty)
    }

    @Test("an RDATE line of more than 500 dates is read whole: 600 all imported, 100,000 refused as too many", arguments: CalendarBackend.allCases)
    func longDateLines(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        func dates(_ count: Int) -> String {
            let start = LocalDateTime("2027-01-01T09:00:00")?.seconds ?? 0
            return (0..<count).map { LocalDateTime(seconds: start + Int64($0) * 3600).description.filter { $0 != "-" && $0 != ":" } + "Z" }
                .joined(separator: ",")
        }
        let ics = Self.calendar([Self.event("six-hundred", "RDATE:\(dates(600))\r\n"), Self.event("many", "RDATE:\(dates(100_000))\r\n")])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        let event = try #require(await harness.result("calendar.get", ["id": "six-hundred"])?["event"])
        #expect(event["recurrenceOverrides"]?.objectValue?.count == 600)
        let errors = imported["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [1])
        #expect(errors.first?["reason"]?.stringValue == "recurrenceOverrides: expected at most 5000 overrides; the event is not imported")
    }

    @Test("long physical lines are folded for libical and read whole: a 40,000-character DESCRIPTION of one, two and four-byte characters, and a 2 MiB property nobody reads",
          arguments: CalendarBackend.allCases)
    func longPhysicalLines(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        // Every byte offset of a fold falls inside a character somewhere along this text.
        let description = String(repeating: "aé€😀 ", count: 8_000)
        let ics = Self.calendar([Self.event("long", "DESCRIPTION:\(description)\r\nX-HUGE:\(String(repeating: "x", count: 2 << 20))\r\n")])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1 && imported["errors"]?.arrayValue?.isEmpty == true, "\(imported)")
        let event = try #require(await harness.result("calendar.get", ["id": "long"])?["event"])
        #expect(event["description"]?.stringValue == description.trimmingCharacters(in: .whitespaces))
    }

    @Test("a line, parameter or attendee libical cannot read is reported with the event it was in, which is imported; so is a UID given twice",
          arguments: CalendarBackend.allCases)
    func unreadableLineIsReported(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        let ics = Self.calendar([
            Self.event("odd", "FOO BAR:secret-token-2\r\n"),
            Self.event("guest", "ATTENDEE:\r\nATTENDEE;CN=Bo:mailto:bo@example.com\r\nX-A;B:secret-token-2\r\n"),
            Self.event("odd"),
        ])
        let outcome = await harness.call("calendar.import", ["ics": .string(ics)])
        #expect(outcome.result?["created"] == 2)
        #expect(outcome.result?["errors"] == [
            ["index": 0, "line": 4, "reason": "left out what cannot be read (a line or parameter); the rest is imported"],
            ["index": 1, "line": 12, "reason": "left out what cannot be read (an ATTENDEE, a line or parameter); the rest is imported"],
            ["index": 2, "line": 22, "reason": "the UID of VEVENT 0 again: this one replaces it"],
        ])
        #expect(await harness.result("calendar.get", ["id": "guest"])?["event"]?["participants"] == ["p1": ["name": "Bo", "email": "bo@example.com", "roles": ["attendee": true]]])
        #expect(!outcome.response.jsonText().contains("secret-token-2"))
    }

    @Test("errors never quote the file: a secret in a UID, SUMMARY, DESCRIPTION or bad property stays out of the answer",
          arguments: CalendarBackend.allCases)
    func errorsQuoteNothing(backend: CalendarBackend) async throws {
        let secret = "s3cr3t-T0KEN"
        let harness = try await CalendarHarness(backend)
        let long = String(repeating: "x", count: 300)
        let ics = Self.calendar([
            Self.event("uid-\(secret)", "RRULE:GARBAGE-\(secret)\r\n"),
            Self.event("uid-\(secret)-2", "RRULE:FREQ=HOURLY;COUNT=3\r\n"),
            Self.event("uid-\(secret)-3", "DTEND:\(secret)\r\n"),
            Self.event("uid-\(secret)-4", "SUMMARY:\(secret)\(String(repeating: "y", count: 1_001))\r\n"),
            Self.event("uid-\(secret)-5", "DESCRIPTION:\(secret)\(String(repeating: "z", count: 100_001))\r\n"),
            Self.event("uid-\(secret)\(long)"),
            Self.event("uid-\(secret)-7", "DTSTART;TZID=\(secret):20261123T090000\r\n"),
            Self.event("uid-\(secret)-8", "RECURRENCE-ID:20261124T090000Z\r\n"),
            Self.event("uid-\(secret)-9", "ATTENDEE;CN=\(secret)\(String(repeating: "n", count: 1_001)):mailto:\(secret)@example.com\r\n"),
        ]) + "BEGIN:VEVENT\r\nUID:uid-\(secret)-10\r\nSUMMARY:\(secret)\r\n"
        let outcome = await harness.call("calendar.import", ["ics": .string(ics)])
        let errors = outcome.result?["errors"]?.arrayValue ?? []
        #expect(errors.map { $0["index"] } == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(!outcome.response.jsonText().contains(secret), "\(outcome.response.jsonText())")
        #expect(!outcome.response.jsonText().lowercased().contains("uid-"))
        #expect(outcome.result?["created"] == 0)
    }

    /// 300,000 nested BEGIN lines made libical's recursion overrun the stack: the host died of SIGSEGV.
    @Test("300,000 nested components are answered, not a crash: a VEVENT closes them, what is too deep elsewhere is left out and reported")
    func deepNesting() async throws {
        let harness = try await CalendarHarness(.memory)
        let depth = 300_000
        let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + String(repeating: "BEGIN:X-DEEP\r\n", count: depth)
            + "BEGIN:VEVENT\r\n" + Self.event("deep") + "END:VEVENT\r\n" + String(repeating: "END:X-DEEP\r\n", count: depth)
            + "BEGIN:VEVENT\r\n" + Self.event("shallow") + "END:VEVENT\r\n" + String(repeating: "BEGIN:X-OPEN\r\n", count: 20)
            + "BEGIN:VEVENT\r\n" + Self.event("after") + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let tail = String(repeating: "BEGIN:X-TAIL\r\n", count: 20) + "BEGIN:VEVENT\r\n" + Self.event("lost") + "END:VEVENT\r\n"
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics + tail)]))
        // A VEVENT closes what is open inside its VCALENDAR, however deep; outside a calendar, what is too deep is left out.
        #expect(imported["created"] == 3)
        #expect(imported["errors"] == [["index": 3, "line": .integer(Int64(CalendarICalendarTests.lines(of: ics + tail, holding: "BEGIN:VEVENT")[3])),
                                        "reason": "inside components nested more than 16 deep; the event is not imported"]])
        #expect(await harness.result("calendar.get", ["id": "deep"])?["event"]?["title"] == "deep")
    }

    @Test("the longest duration holds for its total length whatever the units: create, update and import", arguments: CalendarBackend.allCases)
    func durationCapIsTotal(backend: CalendarBackend) async throws {
        let harness = try await CalendarHarness(backend)
        for duration in ["PT87841H", "P3660DT23H59M59S", "P3660DT1S", "P523W", "PT5270401M", "PT316224001S"] {
            let field = await harness.invalidField("calendar.create", ["title": "long", "start": "2026-11-23T09:00:00", "duration": .string(duration)])
            #expect(field == "duration", "\(duration)")
        }
        for duration in ["PT87840H", "P3660D", "P3659DT24H", "PT316224000S"] {
            let created = await harness.result("calendar.create", ["id": .string("ok-\(duration)"), "title": "long",
                                                                   "start": "2026-11-23T09:00:00", "duration": .string(duration)])
            #expect(created?["created"] == true, "\(duration)")
        }
        #expect(await harness.invalidField("calendar.update", ["id": "ok-P3660D", "patch": ["duration": "PT87841H"]]) == "patch.duration")
        let ics = Self.calendar([
            "UID:hours\r\nDTSTART:20261123T090000Z\r\nDURATION:PT87841H\r\n",
            "UID:days\r\nDTSTART:20261123T090000Z\r\nDURATION:P3660DT23H59M59S\r\n",
            "UID:end\r\nDTSTART:20261123T090000Z\r\nDTEND:20361130T090001Z\r\n",
            "UID:fits\r\nDTSTART:20261123T090000Z\r\nDURATION:PT87840H\r\n",
        ])
        let imported = try #require(await harness.result("calendar.import", ["ics": .string(ics)]))
        #expect(imported["created"] == 1)
        #expect(imported["errors"]?.arrayValue?.map { $0["index"] } == [0, 1, 2])
        #expect(imported["errors"]?.arrayValue?.allSatisfy { $0["reason"]?.stringValue?.hasPrefix("duration: expected") == true } == true)
    }
}

