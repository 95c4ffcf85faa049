import CalendarDomain
import GRDB
import Jansson
import JSONRPC
import Logging
import PostgresTesting
import SwitchboardPostgres
import SwitchboardCore
import SwitchboardHost
import SwitchboardStorage
import Testing

/// The calendar services every shared calendar test runs on: PostgreSQL's only when the test server is
/// there (`scripts/test` starts one; CI always has it), in suites marked `.postgresStores`.
enum CalendarBackend: String, CaseIterable, CustomTestStringConvertible {
    case memory, sqlite, postgres
    var testDescription: String { rawValue }

    static var allCases: [CalendarBackend] { TestPostgres.isAvailable ? [.memory, .sqlite, .postgres] : [.memory, .sqlite] }

    func make(_ events: [CalendarEvent] = [], signal: ChangeSignal = ChangeSignal()) async throws -> any CalendarService {
        switch self {
        case .memory:
            return InMemoryCalendarService(events: events, signal: signal)
        case .sqlite:
            let database = try AppDatabase(path: ":memory:", migrations: SQLiteCalendarService.migrations)
            try await database.writer.write { db in try SQLiteCalendarService.seed(db, events: events) }
            return SQLiteCalendarService(database: database, signal: signal)
        case .postgres:
            let store = try await PostgresStores.fresh(migrations: [PostgresCalendarService.migrations])
            try await store.write { connection in try await PostgresCalendarService.seed(connection, events: events, logger: store.logger) }
            return PostgresCalendarService(store: store, signal: signal)
        }
    }

    /// Another backend than this one, for a round trip from one to the other.
    var other: CalendarBackend { self == .memory ? .sqlite : .memory }
}

/// A calendar served in process: its methods called through JSON-RPC, every answer checked against its schema.
struct CalendarHarness {
    let calendar: any CalendarService
    let dispatcher: Dispatcher

    init(_ backend: CalendarBackend, events: [CalendarEvent] = [], now: String = "2026-11-23T09:00:00Z",
         zone: String? = "Europe/Berlin", readRoots: ReadRoots = .empty, configure: (inout CalendarContext) -> Void = { _ in }) async throws {
        calendar = try await backend.make(events)
        let clock = FixedClock(milliseconds: Timestamp.parse(now) ?? 0)
        var context = CalendarContext(calendar: calendar, clock: clock, defaultZone: zone, readRoots: readRoots)
        configure(&context)
        dispatcher = try MethodRegistry.calendarMethods(context).freeze()
    }

    func call(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> InProcessCall.Outcome {
        let outcome = await InProcessCall.call(method, params: params, dispatcher: dispatcher, logger: Logger(label: "test"))
        DomainSchemas.expectValid(outcome.response, answering: method, sourceLocation: sourceLocation)
        return outcome
    }

    /// The result of `method`, or a recorded issue and `nil`.
    func result(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> JSONValue? {
        let outcome = await call(method, params, sourceLocation: sourceLocation)
        if outcome.result == nil { Issue.record("\(method) failed: \(outcome.response.jsonText())", sourceLocation: sourceLocation) }
        return outcome.result
    }

    /// The `-32602` error's `data.field` of `method`, or a recorded issue.
    func invalidField(_ method: String, _ params: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
        let outcome = await call(method, params, sourceLocation: sourceLocation)
        guard let error = outcome.error, error["code"] == -32602 else {
            Issue.record("\(method) was not refused with -32602: \(outcome.response.jsonText())", sourceLocation: sourceLocation)
            return nil
        }
        return error["data"]?["field"]?.stringValue
    }
}

extension CalendarEvent {
    /// A timed event for tests.
    static func timed(_ id: String, _ title: String, _ start: String, zone: String? = "Europe/Berlin", duration: String = "PT1H",
                      rules: [RecurrenceRule]? = nil) -> CalendarEvent {
        let parsed = (try? EventDuration.parse(duration).get()) ?? .zero
        return CalendarEvent(id: id, title: title, start: LocalDateTime(start) ?? LocalDateTime(seconds: 0), timeZone: zone,
                             duration: parsed, recurrenceRules: rules)
    }
}
