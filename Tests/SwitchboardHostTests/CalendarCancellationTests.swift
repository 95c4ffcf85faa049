@testable import CalendarDomain
import Jansson
import JSONRPC
import SwitchboardCore
import Testing

/// A long calendar computation (an agenda's expansions, an import) holds no one up and stops when
/// cancelled: the request is held just before it starts computing, `host.ping` is answered meanwhile,
/// `$/cancelRequest` is sent, and the computation, released, checks for cancellation and ends with -32800
/// (a result it made would be delivered: issue 19, point 2).
@Suite("Calendar cancellation")
struct CalendarCancellationTests {
    static let events = (0..<50).map { index in
        CalendarEvent(id: "busy-\(index)", title: "Busy \(index)", start: LocalDateTime("1950-01-01T00:00:00") ?? LocalDateTime(seconds: 0),
                      timeZone: "Europe/Berlin", duration: EventDuration(seconds: 60),
                      recurrenceRules: [RecurrenceRule(frequency: .daily, byHour: Array(0...23), byMinute: [0, 20, 40])])
    }

    static let ics = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//switchboard tests//EN\r
        BEGIN:VEVENT\r
        UID:one@example.com\r
        DTSTART;TZID=Europe/Berlin:20261124T100000\r
        SUMMARY:One\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test("a held calendar request lets host.ping through and answers $/cancelRequest with -32800", arguments: [
        ("calendar.agenda", ["from": "2026-01-01", "to": "2028-12-31", "timeZone": "Europe/Berlin"] as JSONValue),
        ("calendar.import", ["ics": .string(Self.ics)] as JSONValue),
    ])
    func heldRequestIsCancellable(method: String, params: JSONValue) async throws {
        let reached = Latch(), release = Latch()
        var context = CalendarContext(calendar: InMemoryCalendarService(events: Self.events),
                                      clock: FixedClock(milliseconds: Timestamp.parse("2026-11-23T09:00:00Z") ?? 0), defaultZone: "Europe/Berlin")
        context.startProbe = {
            reached.open()
            try? await release.opened("the test to release \(method)")
        }
        let calendar = context
        let host = try Harness { $0.add(MethodRegistry.calendarMethods(calendar)) }
        try await host.send(json: request(method, params: params, id: 1))
        try await reached.opened("\(method) to reach its first cancellation check")
        expectResult(try await host.call("host.ping", id: 2), id: 2, "pong")
        try await host.notify("$/cancelRequest", params: ["id": 1])
        release.open()
        expectError(try await host.reply(to: 1), id: 1, code: -32800)
        try await host.waitUntilIdle()
        #expect(host.connection.inFlightCount == 0)
    }
}
