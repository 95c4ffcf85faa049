import CalendarDomain
import Dispatch
import PostgresNIO
import PostgresTesting
import SwitchboardCore
import SwitchboardPostgres
import Testing

/// What only PostgreSQL has: several services (hosts) on one database at once.
@Suite("Calendar on PostgreSQL: several hosts on one database", .postgresStores,
       .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct CalendarPostgresTests {
    static let dentist = CalendarServiceTests.dentist
    static let standUp = CalendarServiceTests.standUp
    static let days = (CalendarDate("2026-11-30") ?? CalendarDate(dayNumber: 0))...(CalendarDate("2026-12-06") ?? CalendarDate(dayNumber: 0))

    @Test("ranges, events and changes read on one host follow the other host's writes, a changed event included")
    func rangesFollowOtherHost() async throws {
        let store = try await PostgresStores.fresh(migrations: [PostgresCalendarService.migrations])
        let reader = PostgresCalendarService(store: store), writer = PostgresCalendarService(store: store)
        let start = try await reader.state()
        _ = try await writer.put([Self.standUp], replacing: false)
        #expect(try await reader.events(touching: Self.days).events == [Self.standUp])
        _ = try await writer.put([Self.dentist], replacing: false)
        _ = try await writer.edit(id: "standup") { _ in EventChange(updated: nil) }
        #expect(try await reader.events(touching: Self.days).events == [Self.dentist])
        var renamed = Self.dentist
        renamed.title = "Dentist (renamed)"
        _ = try await writer.put([renamed], replacing: true)
        // Decoded before under the same id: the new body is read, not the decoded old one.
        #expect(try await reader.events(touching: Self.days).events == [renamed])
        #expect(try await reader.allEvents().events == [renamed])
        let changes = try await reader.changes(since: start, limit: 10)
        // The stand-up came and went after `start`: it folds away.
        #expect(changes.created == ["dentist"] && changes.updated.isEmpty && changes.destroyed.isEmpty)
        #expect(changes.newState == (try await writer.state()))
    }

    @Test("a create on one host while another host's write of the same id is open waits for it, and is then unchanged")
    func createsSerialise() async throws {
        let store = try await PostgresStores.fresh(migrations: [PostgresCalendarService.migrations])
        let first = PostgresCalendarService(store: store), second = PostgresCalendarService(store: store)
        _ = try await first.put([Self.standUp], replacing: false)
        let inside = AsyncStream.makeStream(of: Void.self)
        let release = DispatchSemaphore(value: 0)
        // The first host splits the stand-up into a new event "standup-2" and holds its write open.
        let split = Task {
            try await first.edit(id: "standup") { event in
                inside.continuation.yield()
                release.wait()
                var tail = event
                tail.id = "standup-2"
                return EventChange(updated: event, created: tail)
            }
        }
        for await _ in inside.stream { break }
        var other = Self.dentist
        other.id = "standup-2"
        let finished = SharedCount()
        let create = Task {
            defer { finished.add() }
            return try await second.put([other], replacing: false)
        }
        // Until the second host's write waits for the first's (a lock request not granted), or, were
        // it not to wait, has finished (and then found no "standup-2": the expectation below fails).
        let watcher = try await TestPostgres.connect(store.settings)
        while finished.value == 0, try await TestPostgres.waitingLocks(watcher) == 0 { try Task.checkCancellation(); await Task.yield() }
        try await watcher.close()
        release.signal()
        _ = try await split.value
        #expect(try await create.value.value == [.unchanged])
        #expect(try await second.event(id: "standup-2")?.title == "Stand-up")
    }
}
