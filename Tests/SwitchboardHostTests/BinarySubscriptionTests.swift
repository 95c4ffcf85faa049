import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Push, against the binary: `mail.subscribe` and `catalog.subscribe` hints for this process's writes
/// and for another process's writes on the same database, unsubscribing, the documented notifications.
@Suite("Subscriptions, against the binary", .offCooperativePool)
struct BinarySubscriptionTests {
    typealias H = BinaryHarness

    static let small = ["--feed-items", "10", "--mail-messages", "20", "--now", "2026-01-01T09:00:00Z"]
    static let sendParams = #"{"to":"ann@example.com","subject":"hello","text":"hi"}"#

    /// Reads until a `method` notification arrives; fails on the harness's timeout.
    static func notification(_ method: String, from host: SpawnedHost) throws -> JSONValue {
        while true {
            let message = try host.nextMessage()
            if message["method"]?.stringValue == method { return message }
        }
    }

    @Test("mail.subscribe pushes mail.changed for this connection's own send, then mail.changes lists it", arguments: [H.Wire.ndjson, .lsp])
    func ownWrite(wire: H.Wire) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"] + Self.small, wire: wire)
        try host.send(H.request(1, "mail.subscribe"))
        let subscribed = try host.response(to: 1).response
        let id = try #require(subscribed["result"]?["subscriptionId"]?.stringValue)
        let start = try #require(subscribed["result"]?["state"]?.stringValue)

        try host.send(H.request(2, "mail.send", Self.sendParams))
        let changed = try Self.notification("mail.changed", from: host)
        #expect(changed["params"]?["subscriptionId"] == .string(id))
        try host.send(H.request(3, "mail.changes", #"{"sinceState":"\#(start)"}"#))
        let changes = try host.response(to: 3).response
        #expect(changes["result"]?["created"] == ["s1"], "\(changes)")
        #expect(changes["result"]?["newState"] == changed["params"]?["state"])

        try host.send(H.request(4, "mail.unsubscribe", #"{"subscriptionId":"\#(id)"}"#))
        #expect(try host.response(to: 4).response["result"]?["unsubscribed"] == true)
        try host.send(H.request(5, "mail.unsubscribe", #"{"subscriptionId":"\#(id)"}"#))
        let again = try host.response(to: 5).response
        #expect(again["error"]?["code"] == -32602)
        #expect(again["error"]?["data"]?["field"] == "subscriptionId")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("another process's write on the same database reaches the subscriber (inotify, not polling)")
    func crossProcess() throws {
        let folder = try BinaryHarness.temporaryFolder("push")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/push.sqlite"
        let subscriber = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try subscriber.send(H.request(1, "mail.subscribe"))
        let start = try #require(try subscriber.response(to: 1, within: 60_000).response["result"]?["state"]?.stringValue)

        for round in 1...3 {
            let writer = try H.run(["call", "mail.send", Self.sendParams, "--db", database] + Self.small, raw: true, timeout: 60_000)
            #expect(writer.termination == .exited(0), "\(writer.stderr)")
            let changed = try Self.notification("mail.changed", from: subscriber)
            let written = try JSONValue(parsing: writer.stdout)
            #expect(changed["params"]?["state"] == written["state"], "round \(round)")
        }
        try subscriber.send(H.request(2, "mail.changes", #"{"sinceState":"\#(start)"}"#))
        let changes = try subscriber.response(to: 2).response
        #expect(changes["result"]?["created"]?.arrayValue?.count == 3, "\(changes)")
        subscriber.closeInput()
        #expect(try subscriber.waitForExit() == .exited(0))
    }

    @Test("catalog.subscribe pushes catalog.changed for an import by another process on the same database")
    func catalogImport() throws {
        let folder = try BinaryHarness.temporaryFolder("push")
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/push.sqlite"
        let subscriber = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try subscriber.send(H.request(1, "catalog.subscribe"))
        let start = try #require(try subscriber.response(to: 1, within: 60_000).response["result"]?["state"]?.stringValue)
        let document = #"{"document":{"sectors":[{"id":900,"name":"Zoo","url":"https://example.com/zoo.png","brochures":[]}]}}"#
        let writer = try H.run(["call", "catalog.import", document, "--db", database] + Self.small, raw: true, timeout: 60_000)
        #expect(writer.termination == .exited(0), "\(writer.stderr)")
        let changed = try Self.notification("catalog.changed", from: subscriber)
        try subscriber.send(H.request(2, "catalog.changes", #"{"sinceState":"\#(start)"}"#))
        let changes = try subscriber.response(to: 2).response
        #expect(changes["result"]?["newState"] == changed["params"]?["state"])
        #expect(changes["result"]?["created"]?.arrayValue?.isEmpty == false, "\(changes)")
        subscriber.closeInput()
        #expect(try subscriber.waitForExit() == .exited(0))
    }

    @Test("calendar.subscribe pushes calendar.changed for an event created on the same connection; calendar.changes lists it")
    func calendarCreate() throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"] + Self.small)
        try host.send(H.request(1, "calendar.subscribe"))
        let start = try #require(try host.response(to: 1).response["result"]?["state"]?.stringValue)
        try host.send(H.request(2, "calendar.create",
                                #"{"id":"pushed","title":"Pushed","start":"2026-01-05T09:30:00","timeZone":"Europe/Berlin","duration":"PT30M"}"#))
        let changed = try Self.notification("calendar.changed", from: host)
        try host.send(H.request(3, "calendar.changes", #"{"sinceState":"\#(start)"}"#))
        let changes = try host.response(to: 3).response
        #expect(changes["result"]?["created"]?.arrayValue?.contains("pushed") == true, "\(changes)")
        #expect(changes["result"]?["newState"] == changed["params"]?["state"])
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("rpc.discover lists the notifications the host sends under x-notifications")
    func notificationsAreDiscoverable() throws {
        let run = try H.run(["call", "rpc.discover", "--backend", "memory"], raw: true, timeout: 60_000)
        let document = try JSONValue(parsing: run.stdout)
        let names = document["x-notifications"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        for name in ["$/notificationsDropped", "$/progress", "calendar.changed", "catalog.changed", "chat.message", "chat.messageState",
                     "host.subscriptionDropped", "mail.changed"] {
            #expect(names.contains(name), "\(names)")
        }
        let subscribe = document["methods"]?.arrayValue?.first { $0["name"] == "mail.subscribe" }
        #expect(subscribe?["x-notifications"] == ["mail.changed", "host.subscriptionDropped"])
    }
}
