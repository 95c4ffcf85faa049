import Jansson
import Testing

/// Methods whose work grows with the data (``RPCMethod/runsLong``: `mail.search`, `catalog.sectors`,
/// imports, `calendar.agenda`, `host.sleep`) run on threads of their own: as many of them at once as
/// cores, each holding its thread, no longer hold up every other request.
@Suite("Long requests beside short ones, against the binary", .offCooperativePool)
struct BinaryLongWorkTests {
    private typealias H = BinaryHarness

    @Test("more requests computing at once than cores, none looking at its cancel: inbox.list and calendar.day are still answered")
    func shortRequestsAnsweredBesideLongOnes() throws {
        let long = BinarySignalTests.usableCores() + 1
        let host = try SpawnedHost(arguments: ["--backend", "memory", "--now", "2026-01-01T09:00:00Z", "--drain-timeout", "200"])
        // Every one holds a thread once this returns.
        try BinarySignalTests.startBusySleeps(ids: 1...long, on: host)
        try host.send(H.request(100, "inbox.list", #"{"limit":2}"#))
        #expect(try host.response(to: 100).response["result"]?["items"]?.arrayValue?.count == 2)
        try host.send(H.request(101, "calendar.day", #"{"date":"2026-01-01"}"#))
        #expect(try host.response(to: 101).response["result"]?["events"] != nil)
        host.closeInput()
        let rest = try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(rest.filter { $0["id"] != nil && H.errorCode($0) == -32800 }.count == long, "each long request is answered -32800 at exit")
    }
}
