import CalendarDomain
import DomainMethods
import GRDB
import JSONRPC
import SwitchboardCore
import SwitchboardStorage
import SchemaTesting
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One suite, every implementation: what holds for the in-memory calendar holds for SQLite and PostgreSQL.
@Suite("Calendar service, in memory, on SQLite and on PostgreSQL", .postgresStores)
struct CalendarServiceTests {
    static let standUp = CalendarEvent.timed("standup", "Stand-up", "2026-11-02T09:30:00", duration: "PT15M",
                                             rules: [RecurrenceRule(frequency: .weekly, byDay: [.init(day: .mo), .init(day: .we)])])
    static let dentist = CalendarEvent.timed("dentist", "Dentist", "2026-12-01T15:00:00")

    @Test("events are stored and read back as they were", arguments: CalendarBackend.allCases)
    func storeAndRead(backend: CalendarBackend) async throws {
        let calendar = try await backend.make()
        let committed = try await calendar.put([Self.standUp, Self.dentist], replacing: false)
        #expect(committed.value == [.created, .created])
        #expect(try await calendar.event(id: "standup") == Self.standUp)
        #expect(try await calendar.event(id: "nope") == nil)
        #expect(try await calendar.allEvents().events.map(\.id) == ["dentist", "standup"])
        #expect(committed.state == (try await calendar.state()))
    }

    @Test("a second put of the same id keeps the stored event unless replacing", arguments: CalendarBackend.allCases)
    func putTwice(backend: CalendarBackend) async throws {
        let calendar = try await backend.make([Self.dentist])
        var changed = Self.dentist
        changed.title = "Dentist (moved)"
        #expect(try await calendar.put([changed], replacing: false).value == [.unchanged])
        #expect(try await calendar.event(id: "dentist")?.title == "Dentist")
        #expect(try await calendar.put([changed], replacing: true).value == [.updated])
        #expect(try await calendar.put([changed], replacing: true).value == [.unchanged])
        #expect(try await calendar.event(id: "dentist")?.title == "Dentist (moved)")
    }

    @Test("events touching a range: a recurring one without end, a one-off only near its date", arguments: CalendarBackend.allCases)
    func touching(backend: CalendarBackend) async throws {
        let calendar = try await backend.make([Self.standUp, Self.dentist])
        let range = { (from: String, to: String) in (CalendarDate(from) ?? CalendarDate(dayNumber: 0))...(CalendarDate(to) ?? CalendarDate(dayNumber: 0)) }
        #expect(try await calendar.events(touching: range("2027-06-01", "2027-06-30")).events.map(\.id) == ["standup"])
        #expect(try await calendar.events(touching: range("2026-11-30", "2026-12-02")).events.map(\.id) == ["dentist", "standup"])
        #expect(try await calendar.events(touching: range("2026-10-01", "2026-10-20")).events.isEmpty)
    }

    @Test("edits and deletes are logged as updated, created and destroyed, with the state of the write", arguments: CalendarBackend.allCases)
    func changesOfEdits(backend: CalendarBackend) async throws {
        let calendar = try await backend.make([Self.standUp, Self.dentist])
        let start = try await calendar.state()
        let split = try await calendar.edit(id: "standup") { event in
            var head = event, tail = event
            tail.id = "standup-2"
            head.title = "Old stand-up"
            return EventChange(updated: head, created: tail)
        }
        #expect(split.state == (try await calendar.state()))
        _ = try await calendar.edit(id: "dentist") { _ in EventChange(updated: nil) }
        let changes = try await calendar.changes(since: start, limit: 100)
        #expect(changes.created == ["standup-2"])
        #expect(changes.updated == ["standup"])
        #expect(changes.destroyed == ["dentist"])
        #expect(try await calendar.event(id: "dentist") == nil)
        #expect(changes.newState == (try await calendar.state()))
    }

    @Test("an edit of an unknown event is notFound and changes nothing", arguments: CalendarBackend.allCases)
    func editUnknown(backend: CalendarBackend) async throws {
        let calendar = try await backend.make([Self.dentist])
        let before = try await calendar.state()
        await #expect(throws: ServiceError.notFound(kind: "event", id: "ghost")) {
            _ = try await calendar.edit(id: "ghost") { event in EventChange(updated: event) }
        }
        #expect(try await calendar.state() == before)
    }

    @Test("a change that throws inside the write stores nothing", arguments: CalendarBackend.allCases)
    func failedEditRollsBack(backend: CalendarBackend) async throws {
        let calendar = try await backend.make([Self.dentist])
        let before = try await calendar.state()
        struct Refused: Error {}
        await #expect(throws: Refused.self) { _ = try await calendar.edit(id: "dentist") { _ in throw Refused() } }
        #expect(try await calendar.state() == before)
        #expect(try await calendar.event(id: "dentist") == Self.dentist)
    }

    @Test("every committed write posts the change signal", arguments: CalendarBackend.allCases)
    func postsSignal(backend: CalendarBackend) async throws {
        let signal = ChangeSignal()
        let posts = Counter()
        signal.listen { posts.increment() }
        let calendar = try await backend.make(signal: signal)
        _ = try await calendar.put([Self.dentist], replacing: false)
        _ = try await calendar.edit(id: "dentist") { event in EventChange(updated: event) }
        #expect(posts.value == 2)
    }

    @Test("on SQLite, ranges read after another writer's changes see them, also once the change log is pruned")
    func decodedEventsFollowOtherWriters() async throws {
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteCalendarService.migrations)
        let reader = SQLiteCalendarService(database: database), writer = SQLiteCalendarService(database: database)
        let days = (CalendarDate("2026-11-30") ?? CalendarDate(dayNumber: 0))...(CalendarDate("2026-12-06") ?? CalendarDate(dayNumber: 0))
        _ = try await writer.put([Self.standUp], replacing: false)
        #expect(try await reader.events(touching: days).events.map(\.id) == ["standup"])
        _ = try await writer.put([Self.dentist], replacing: false)
        _ = try await writer.edit(id: "standup") { _ in EventChange(updated: nil) }
        #expect(try await reader.events(touching: days).events.map(\.id) == ["dentist"])
        var moved = Self.dentist
        moved.start = LocalDateTime("2027-02-01T15:00:00") ?? moved.start
        _ = try await writer.put([moved], replacing: true)
        try await database.writer.write { db in try ChangeLog.prune(db, keeping: 1) }
        _ = try await writer.put([Self.standUp], replacing: false)
        #expect(try await reader.events(touching: days).events.map(\.id) == ["standup"])
    }

    @Test("on SQLite, a calendar stored before its rows were kept in span order opens with every event, reads ranges as in memory, and moves and deletes keep one row an id")
    func rowsKeptInSpanOrderAfterMigration() async throws {
        let today = CalendarDate("2026-11-23") ?? CalendarDate(dayNumber: 0)
        let events = DemoCalendar.events(around: today, extra: 300)
        let folder = try TestScratch.folder("calendar-v1")
        defer { _ = system("rm -rf '\(folder)'") }
        let path = folder + "/calendar.sqlite"
        // Made with the first migration only, as the switchboard before this one made it.
        do {
            let old = try AppDatabase(path: path, migrations: Array(SQLiteCalendarService.migrations.prefix(1)))
            _ = try await SQLiteCalendarService(database: old).put(events, replacing: false)
        }
        let database = try AppDatabase(path: path, migrations: SQLiteCalendarService.migrations)
        let schema = try await database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'calendar_event'") ?? ""
        }
        #expect(schema.contains("WITHOUT ROWID") && schema.contains("PRIMARY KEY (long_span, first_day, id)"), "\(schema)")
        let calendar = SQLiteCalendarService(database: database)
        #expect(try await calendar.allEvents().events == events.sorted { $0.id < $1.id })
        let reference = InMemoryCalendarService(events: events)
        for (from, days): (Int64, Int64) in [(0, 31), (-400, 900), (200, 10)] {
            let range = today.adding(days: from)...today.adding(days: from + days - 1)
            #expect(try await SQLiteCalendarService(database: database).events(touching: range).events
                    == (try await reference.events(touching: range).events), "\(range)")
        }
        // A move changes the row's key: the id still names one row, found in its new range only.
        var moved = try #require(events.first { !$0.isRecurring })
        moved.start = LocalDateTime("2027-06-01T15:00:00") ?? moved.start
        _ = try await calendar.put([moved], replacing: true)
        _ = try await reference.put([moved], replacing: true)
        _ = try await calendar.edit(id: events[1].id) { _ in EventChange(updated: nil) }
        _ = try await reference.edit(id: events[1].id) { _ in EventChange(updated: nil) }
        let ids = [moved.id, events[1].id]
        let rows = try await database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM calendar_event WHERE id IN (?, ?)", arguments: StatementArguments(ids)) ?? -1
        }
        #expect(rows == 1)
        for range in [today...today.adding(days: 30), (CalendarDate("2027-05-30") ?? today)...(CalendarDate("2027-06-02") ?? today)] {
            #expect(try await SQLiteCalendarService(database: database).events(touching: range).events
                    == (try await reference.events(touching: range).events), "\(range)")
        }
    }

    @Test("on SQLite, a fresh reader reads the days asked; ranges before, after, around, between and inside them, and an event another writer moves in from outside them, come out as in memory")
    func rangesFromCoveredDays() async throws {
        let today = CalendarDate("2026-11-23") ?? CalendarDate(dayNumber: 0)
        let events = DemoCalendar.events(around: today, extra: 600)
        let database = try AppDatabase(path: ":memory:", migrations: SQLiteCalendarService.migrations)
        let writer = SQLiteCalendarService(database: database)
        _ = try await writer.put(events, replacing: false)
        let reader = SQLiteCalendarService(database: database)
        let reference = InMemoryCalendarService(events: events)
        func check(_ from: Int64, _ days: Int64) async throws {
            let range = today.adding(days: from)...today.adding(days: from + days - 1)
            #expect(try await reader.events(touching: range).events == (try await reference.events(touching: range).events), "\(range)")
        }
        // Far ranges leave holes between the days covered; later ranges fall in a hole, span holes, or join them.
        for (from, days): (Int64, Int64) in [(0, 7), (-3, 2), (60, 31), (20, 5), (200, 10), (5, 200), (-200, 3), (-199, 150),
                                             (-400, 900), (10, 1)] {
            try await check(from, days)
        }
        var far = Self.dentist
        far.start = LocalDateTime("2031-03-01T15:00:00") ?? far.start
        for calendar in [writer, reference] as [any CalendarService] { _ = try await calendar.put([far], replacing: false) }
        try await check(0, 7)
        var near = far
        near.start = today.adding(days: 2).midnight.adding(seconds: 15 * 3_600)
        for calendar in [writer, reference] as [any CalendarService] { _ = try await calendar.put([near], replacing: true) }
        try await check(0, 7)
        #expect(try await reader.events(touching: today...today.adding(days: 6)).events.contains { $0.id == "dentist" })
        try await check(1_500, 31)
    }

    @Test("an id holding NUL is no stored event: read as none, edited as notFound", arguments: CalendarBackend.allCases)
    func nulInID(backend: CalendarBackend) async throws {
        let calendar = try await backend.make([Self.dentist])
        #expect(try await calendar.event(id: "dent\u{0}ist") == nil)
        await #expect(throws: ServiceError.notFound(kind: "event", id: "dent\u{0}ist")) {
            _ = try await calendar.edit(id: "dent\u{0}ist") { event in EventChange(updated: event) }
        }
    }

    @Test("a large calendar (seeded in batches) reads back as in memory: every event, in order, and each range", arguments: CalendarBackend.allCases)
    func largeCalendarAsInMemory(backend: CalendarBackend) async throws {
        let today = CalendarDate("2026-11-23") ?? CalendarDate(dayNumber: 0)
        let events = DemoCalendar.events(around: today, extra: 2_500)
        let calendar = try await backend.make(events)
        let reference = InMemoryCalendarService(events: events)
        #expect(try await calendar.allEvents().events == (try await reference.allEvents().events))
        for (from, days): (Int64, Int64) in [(-200, 31), (-3, 7), (0, 1), (100, 92), (400, 31)] {
            let range = today.adding(days: from)...today.adding(days: from + days - 1)
            let got = try await calendar.events(touching: range).events
            #expect(got == (try await reference.events(touching: range).events), "\(range)")
        }
    }

    @Test("a put naming one id twice stores the last and reports each as the one before it left it", arguments: CalendarBackend.allCases)
    func putOneIDTwice(backend: CalendarBackend) async throws {
        let calendar = try await backend.make()
        let start = try await calendar.state()
        var moved = Self.dentist
        moved.title = "Dentist (moved)"
        #expect(try await calendar.put([Self.dentist, moved, moved], replacing: true).value == [.created, .updated, .unchanged])
        #expect(try await calendar.event(id: "dentist") == moved)
        let changes = try await calendar.changes(since: start, limit: 10)
        #expect(changes.created == ["dentist"] && changes.updated.isEmpty)
        #expect(try await calendar.put([Self.dentist, moved], replacing: false).value == [.unchanged, .unchanged])
    }

    @Test("an unknown or foreign state is -32010", arguments: CalendarBackend.allCases)
    func unknownState(backend: CalendarBackend) async throws {
        let calendar = try await backend.make()
        for state in ["nonsense", "feed-0", ""] {
            await #expect(throws: ServiceError.self) { _ = try await calendar.changes(since: state, limit: 10) }
        }
    }
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
