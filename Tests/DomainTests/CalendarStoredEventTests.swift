import CalendarDomain
import DomainMethods
import GRDB
import Jansson
import JSONRPC
import Logging
import SwitchboardCore
import SwitchboardHost
import SwitchboardStorage
import Testing

/// The calendar's stored rows read back as they were written (the direct reader, issue 21 point 3),
/// and a damaged row is a service failure that quotes nothing of the file.
@Suite("Calendar: stored events")
struct CalendarStoredEventTests {
    /// An event with every member the calendar keeps set, and one with the optional ones absent.
    static let full: [CalendarEvent] = {
        let start = LocalDateTime("2026-03-02T09:30:00") ?? LocalDateTime(seconds: 0)
        let rule = RecurrenceRule(frequency: .monthly, interval: 2, firstDayOfWeek: .su, byDay: [.init(day: .mo, nthOfPeriod: -1), .init(day: .fr)],
                                  byMonthDay: [1, -1], byMonth: ["3", "12"], byYearDay: [60], byWeekNo: [9], byHour: [9, 17],
                                  byMinute: [0, 30], bySetPosition: [1], until: LocalDateTime("2027-03-02T09:30:00"))
        let override = EventOverride(title: "Moved", description: "Elsewhere", start: start.adding(seconds: 86_400 * 7 + 3600),
                                     duration: EventDuration(days: 1, seconds: 90), locations: ["l2": Location(name: "Room Ω")],
                                     participants: ["p": Participant(email: "p@example.com")])
        return [
            CalendarEvent(id: "full", title: "Every member \u{1F4C5}", description: "line one\nline \"two\"", start: start,
                          timeZone: "Europe/Berlin", duration: EventDuration(seconds: 5400), showWithoutTime: false,
                          locations: ["l1": Location(name: "Room 1"), "l2": Location(name: "")],
                          participants: ["a": Participant(name: "Ada", email: "ada@example.com", roles: ["owner": true, "attendee": false]),
                                         "b": Participant()],
                          recurrenceRules: [rule, RecurrenceRule(frequency: .daily, count: 3)],
                          recurrenceOverrides: ["2026-03-09T09:30:00": override, "2026-03-16T09:30:00": .exclusion]),
            CalendarEvent(id: "bare", title: "", start: start, timeZone: nil, duration: EventDuration(days: 1), showWithoutTime: true),
        ]
    }()

    /// A SQLite calendar in memory holding `rows` (id, body) as stored, served through its methods.
    static func served(rows: [(String, String)]) throws -> (Dispatcher, SQLiteCalendarService) {
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteCalendarService.migrations)
        try database.writer.write { db in
            for (id, body) in rows {
                try db.execute(sql: "INSERT INTO calendar_event(id, first_day, last_day, long_span, body) VALUES (?, 0, NULL, 1, ?)",
                               arguments: [id, body])
            }
        }
        let service = SQLiteCalendarService(database: database)
        let context = CalendarContext(calendar: service, clock: FixedClock(milliseconds: 0), defaultZone: "UTC", readRoots: .empty)
        return (try MethodRegistry.calendarMethods(context).freeze(), service)
    }

    @Test("every member of every event reads back equal from its row")
    func roundTrip() async throws {
        let events = Self.full + DemoCalendar.events(around: CalendarDate(dayNumber: 20_500), extra: 400)
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteCalendarService.migrations)
        try await database.writer.write { db in try SQLiteCalendarService.seed(db, events: events) }
        let read = try await SQLiteCalendarService(database: database).allEvents().events
        #expect(read == events.sorted { $0.id < $1.id })
    }

    @Test("a damaged row is a service failure naming no text of it", arguments: [
        #"{"id":"x","title":"t","start":"SECRET-1","duration":"PT1H","showWithoutTime":false}"#,
        #"{"id":"x","title":"t","start":"2026-03-02T09:30:00","duration":"PT1H","showWithoutTime":false,"locations":{"l":{"name":["SECRET-2"]}}}"#,
        #"{"id":"x","title":"t","start":"2026-03-02T09:30:00","duration":"PT1H","showWithoutTime":false,"recurrenceRules":[{"frequency":"SECRET-3"}]}"#,
        #"{"id":"x","title":"t","start":"2026-03-02T09:30:00","duration":"PT1H","showWithoutTime":"SECRET-4"}"#,
        #"{"id":"x","title":"t","start":"2026-03-02T09:30:00","duration":"PT1H"}"#,
        #"["SECRET-5"]"#,
        #"{SECRET-6}"#,
    ])
    func damaged(body: String) async throws {
        let (dispatcher, _) = try Self.served(rows: [("x", body)])
        let outcome = await InProcessCall.call("calendar.get", params: ["id": "x"], dispatcher: dispatcher, logger: Logger(label: "test"))
        DomainSchemas.expectValid(outcome.response, answering: "calendar.get")
        let error = try #require(outcome.error, "\(outcome.response.jsonText())")
        #expect(error["code"] == .integer(Int64(ErrorCode.serviceFailure.rawValue)), "\(error.jsonText())")
        #expect(!outcome.response.jsonText().contains("SECRET"), "\(outcome.response.jsonText())")
    }
}
