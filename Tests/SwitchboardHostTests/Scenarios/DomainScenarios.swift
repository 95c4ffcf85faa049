import Jansson
import Testing

/// A short end-to-end story per domain — sign in, list, write, see the change, subscribe, get the push —
/// written once against ``ScenarioDriver`` and run by each driver. Each step checks what a client relies
/// on; the harnesses check every answer against its schema.
enum DomainScenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case mail, feed, chat, catalog, calendar

    var testDescription: String { rawValue }

    /// The password the mail story signs in with: no log line may hold it, at any level.
    static let password = "scenario-Pa55word-never-logged"

    func run(on host: any ScenarioDriver) async throws {
        switch self {
        case .mail: try await Self.mail(host)
        case .feed: try await Self.feed(host)
        case .chat: try await Self.chat(host)
        case .catalog: try await Self.catalog(host)
        case .calendar: try await Self.calendar(host)
        }
    }

    /// Signs in as a new account, finds its Sent folder empty, subscribes, sends, gets `mail.changed`,
    /// and finds the message through `mail.changes`, `mail.get` and the Sent folder.
    static func mail(_ host: any ScenarioDriver) async throws {
        let login = try await host.result("mail.login", ["email": "scenario@example.com", "password": .string(password)])
        #expect(login["created"] == true)
        #expect(login["account"]?["email"] == "scenario@example.com")
        let before = try await host.result("inbox.list", ["folder": "Sent"])
        #expect(before["items"] == [])
        let subscription = try await host.result("mail.subscribe")
        let subscriptionID = try #require(subscription["subscriptionId"])
        let start = try #require(subscription["state"])

        let sent = try await host.result("mail.send", ["to": "ann@example.com", "subject": "Scenario", "text": "One source, two hosts."])
        let uid = try #require(sent["message"]?["uid"])
        #expect(sent["message"]?["folder"] == "Sent")

        let changed = try await host.push("mail.changed")
        #expect(changed["params"]?["subscriptionId"] == subscriptionID)
        let changes = try await host.result("mail.changes", ["sinceState": start])
        #expect(changes["created"] == [uid])
        #expect(changes["newState"] == changed["params"]?["state"])
        #expect(try await host.result("mail.get", ["uid": uid])["subject"] == "Scenario")
        let after = try await host.result("inbox.list", ["folder": "Sent"])
        #expect(after["items"]?.arrayValue?.map { $0["subject"] } == ["Scenario"])
    }

    /// The feed is read-only over the wire (no write, no subscribe): lists a page, reads an item, reads
    /// the same page by number, and finds no change since the listed state.
    static func feed(_ host: any ScenarioDriver) async throws {
        let page = try await host.result("feed.list", ["limit": 3])
        let items = try #require(page["items"]?.arrayValue)
        #expect(items.count == 3)
        #expect(page["total"] == 10)
        let first = try #require(items.first)
        #expect(try await host.result("feed.get", ["id": first["id"] ?? .null]) == first)
        #expect(try await host.result("feed.page", ["page": 1, "pageSize": 3])["items"] == .array(items))
        let changes = try await host.result("feed.changes", ["sinceState": page["state"] ?? .null])
        #expect(changes["created"] == [] && changes["updated"] == [] && changes["destroyed"] == [])
    }

    /// As the process's chat user: lists users, opens a room with one, subscribes, sends (answered
    /// pending), gets `chat.messageState` sent and `chat.message`, and finds it in the history.
    static func chat(_ host: any ScenarioDriver) async throws {
        let users = try await host.result("chat.users", ["limit": 5])
        let other = try #require(users["items"]?.arrayValue?.first?["id"])
        let room = try #require(try await host.result("chat.open", ["userId": other])["room"]?["id"])
        let subscription = try await host.result("chat.subscribe", ["roomId": room])

        let send = try await host.result("chat.send", ["roomId": room, "text": "hello from the scenario", "clientMessageId": "scenario-1"])
        #expect(send["message"]?["state"] == "pending")
        let state = try await host.push("chat.messageState")
        #expect(state["params"]?["clientMessageId"] == "scenario-1")
        #expect(state["params"]?["state"] == "sent")
        let stored = try #require(state["params"]?["id"])

        let pushed = try await host.push("chat.message")
        #expect(pushed["params"]?["subscriptionId"] == subscription["subscriptionId"])
        #expect(pushed["params"]?["message"]?["id"] == stored)
        #expect(pushed["params"]?["message"]?["text"] == "hello from the scenario")
        // The other side may have answered meanwhile (the demo's users do): the message is among the newest.
        let history = try await host.result("chat.history", ["roomId": room, "limit": 5])
        let kept = history["items"]?.arrayValue?.first { $0["id"] == stored }
        #expect(kept?["text"] == "hello from the scenario")
        #expect(kept?["state"] == "sent")
    }

    /// Lists the sectors, subscribes, imports a sector with a brochure, gets `catalog.changed`, and finds
    /// both in `catalog.changes`, the brochure by search and the sector in the list.
    static func catalog(_ host: any ScenarioDriver) async throws {
        let sectors = try await host.result("catalog.sectors")
        #expect(sectors["items"]?.arrayValue?.contains { $0["id"] == 7_707 } == false)
        let subscription = try await host.result("catalog.subscribe")
        let start = try #require(subscription["state"])

        let document: JSONValue = ["sectors": [["id": 7_707, "name": "Scenario sector", "url": .null, "brochures": [
            ["id": 770_701, "title": "Scenario brochure", "retailerName": "Scenario shop", "coverUrl": .null],
        ]]]]
        let imported = try await host.result("catalog.import", ["document": document])
        #expect(imported["invalid"] == 0)

        let changed = try await host.push("catalog.changed")
        #expect(changed["params"]?["subscriptionId"] == subscription["subscriptionId"])
        let changes = try await host.result("catalog.changes", ["sinceState": start])
        #expect(Set(changes["created"]?.arrayValue ?? []) == ["sector/7707", "brochure/770701"])
        let found = try await host.result("catalog.search", ["query": "scenario brochure"])
        #expect(found["items"]?.arrayValue?.map { $0["id"] } == [770_701])
        let after = try await host.result("catalog.sectors")
        #expect(after["items"]?.arrayValue?.contains { $0["id"] == 7_707 } == true)
    }

    /// Lists a day, subscribes, creates an event on it, gets `calendar.changed`, and finds the event in
    /// `calendar.changes`, by id, and on the day.
    static func calendar(_ host: any ScenarioDriver) async throws {
        let day: JSONValue = ["date": "2026-01-05", "timeZone": "Europe/Berlin"]
        let before = try await host.result("calendar.day", day)
        #expect(before["events"]?.arrayValue?.contains { $0["id"] == "scenario" } == false)
        let subscription = try await host.result("calendar.subscribe")
        let start = try #require(subscription["state"])

        let created = try await host.result("calendar.create", ["id": "scenario", "title": "Scenario", "start": "2026-01-05T09:30:00",
                                                                "timeZone": "Europe/Berlin", "duration": "PT30M"])
        #expect(created["created"] == true)

        let changed = try await host.push("calendar.changed")
        #expect(changed["params"]?["subscriptionId"] == subscription["subscriptionId"])
        let changes = try await host.result("calendar.changes", ["sinceState": start])
        #expect(changes["created"] == ["scenario"])
        #expect(try await host.result("calendar.get", ["id": "scenario"])["event"]?["title"] == "Scenario")
        let after = try await host.result("calendar.day", day)
        let entry = after["events"]?.arrayValue?.first { $0["id"] == "scenario" }
        #expect(entry?["start"] == "2026-01-05T09:30:00")
    }
}

@Suite("Domain scenarios: one story per domain, in this process and against the binary", .offCooperativePool)
struct DomainScenarioTests {
    @Test("the story runs alike on both hosts, and the mail password is on no log line (trace level)",
          arguments: DomainScenario.allCases, ScenarioHost.allCases)
    func story(scenario: DomainScenario, host kind: ScenarioHost) async throws {
        let host = try await kind.start()
        try await scenario.run(on: host)
        let log = try await host.finish()
        #expect(!log.contains(DomainScenario.password), "the password reached the log")
    }
}
