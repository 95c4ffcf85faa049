import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Chat push across processes, against the binary: a crash in the middle of a burst of sends loses
/// and doubles nothing, and a subscriber that stops reading is dropped with a state it resyncs from.
@Suite("Chat push across processes, against the binary", .offCooperativePool)
struct BinaryChatPushTests {
    typealias H = BinaryHarness

    static let small = ["--feed-items", "10", "--mail-messages", "10", "--now", "2026-01-01T09:00:00Z"]
    static let room = "dm-u0-u1"

    /// A fresh folder under /tmp, removed by the caller.
    static func folder() throws -> String {
        return try BinaryHarness.temporaryFolder("chat-push")
    }

    static func send(_ clientID: String, id: Int) -> String {
        H.request(id, "chat.send", #"{"roomId":"\#(room)","text":"message \#(clientID)","clientMessageId":"\#(clientID)"}"#)
    }

    static func subscribe(_ host: SpawnedHost) throws -> (id: String, state: String) {
        try host.send(H.request(1, "chat.subscribe", #"{"roomId":"\#(room)"}"#))
        let result = try #require(try host.response(to: 1, within: 60_000).response["result"])
        return (try #require(result["subscriptionId"]?.stringValue), try #require(result["state"]?.stringValue))
    }

    /// The `clientMessageId` → stored id of every `chat.messageState` "sent" among `messages`.
    static func sent(in messages: [JSONValue]) -> [String: String] {
        var sent: [String: String] = [:]
        for message in messages where message["method"] == "chat.messageState" && message["params"]?["state"] == "sent" {
            if let client = message["params"]?["clientMessageId"]?.stringValue, let id = message["params"]?["id"]?.stringValue {
                sent[client] = id
            }
        }
        return sent
    }

    /// Every message of the room, through `chat.history` pages.
    static func history(_ host: SpawnedHost, firstID: Int) throws -> [JSONValue] {
        var messages: [JSONValue] = []
        var cursor: String?
        var id = firstID
        repeat {
            let cursorMember = cursor.map { #","cursor":"\#($0)""# } ?? ""
            try host.send(H.request(id, "chat.history", #"{"roomId":"\#(room)","limit":500\#(cursorMember)}"#))
            let page = try #require(try host.response(to: .integer(Int64(id))).response["result"])
            messages += page["items"]?.arrayValue ?? []
            cursor = page["nextCursor"]?.stringValue
            id += 1
        } while cursor != nil
        return messages
    }

    @Test("SIGKILL in a burst of chat.send: every message whose sent went out is stored once; retries store nothing twice; the subscriber sees each stored message once")
    func killDuringBurst() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/chat.sqlite"
        let count = 300
        let clientIDs = (0..<count).map { "k-\($0)" }

        let subscriber = try SpawnedHost(arguments: ["--db", database] + Self.small)
        let subscription = try Self.subscribe(subscriber)

        // The sender is killed once 30 messages were reported sent, while the rest are in flight.
        let sender = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try sender.send(clientIDs.enumerated().map { Self.send($0.element, id: $0.offset + 10) })
        var seen: [JSONValue] = []
        while Self.sent(in: seen).count < 30 { seen.append(try sender.nextMessage(within: 60_000)) }
        sender.signal(SIGKILL)
        seen += (try? sender.readToEndOfOutput(within: 60_000)) ?? []
        #expect(try sender.waitForExit() == .signaled(SIGKILL))
        let reportedSent = Self.sent(in: seen)

        // A client retries every message after the crash, then sends a marker.
        let retry = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try retry.send(clientIDs.enumerated().map { Self.send($0.element, id: $0.offset + 10) })
        var retried: [String: JSONValue] = [:]
        var retryOutput: [JSONValue] = []
        while retried.count < count {
            let message = try retry.nextMessage(within: 60_000)
            retryOutput.append(message)
            if let client = message["result"]?["message"]?["clientMessageId"]?.stringValue { retried[client] = message["result"]?["message"] }
        }
        for (client, id) in reportedSent {
            #expect(retried[client]?["duplicate"] == true, "\(client) was reported sent before the crash but stored again")
            #expect(retried[client]?["id"] == .string(id))
        }
        try retry.send(Self.send("marker", id: 5_000))
        while Self.sent(in: retryOutput)["marker"] == nil { retryOutput.append(try retry.nextMessage(within: 60_000)) }

        // Storage: each client id exactly once.
        let stored = try Self.history(retry, firstID: 6_000).filter { $0["clientMessageId"]?.stringValue?.hasPrefix("k-") == true }
        let storedClients = stored.compactMap { $0["clientMessageId"]?.stringValue }
        #expect(storedClients.count == count)
        #expect(Set(storedClients) == Set(clientIDs))
        retry.closeInput()
        #expect(try retry.waitForExit() == .exited(0))

        // The subscriber: every stored message once, in storage order, up to the marker.
        var delivered: [String] = []
        while true {
            let message = try subscriber.nextMessage(within: 60_000)
            guard message["method"] == "chat.message" else { continue }
            #expect(message["params"]?["subscriptionId"] == .string(subscription.id))
            let client = message["params"]?["message"]?["clientMessageId"]?.stringValue ?? "?"
            if client == "marker" { break }
            delivered.append(client)
        }
        #expect(delivered.count == count, "delivered \(delivered.count) messages for \(count) stored")
        #expect(Set(delivered) == Set(clientIDs))
        let storageOrder = stored.reversed().compactMap { $0["clientMessageId"]?.stringValue }
        #expect(delivered == Array(storageOrder), "delivered out of storage order")
        subscriber.closeInput()
        #expect(try subscriber.waitForExit() == .exited(0))
    }

    @Test("one message at a time from another process: each reaches the subscriber with nothing written after it")
    func oneAtATime() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/chat.sqlite"
        let subscriber = try SpawnedHost(arguments: ["--db", database, "--chat-user", "u1"] + Self.small)
        _ = try Self.subscribe(subscriber)
        let sender = try SpawnedHost(arguments: ["--db", database] + Self.small)
        // The last write of each round is the commit itself: a wake-up taken from the WAL write alone
        // (before SQLite marks the commit) would leave the message undelivered here.
        for round in 0..<40 {
            try sender.send(Self.send("one-\(round)", id: round + 10))
            while true {
                let message = try subscriber.nextMessage(within: 60_000)
                if message["params"]?["message"]?["clientMessageId"]?.stringValue == "one-\(round)" { break }
            }
        }
        sender.closeInput()
        #expect(try sender.waitForExit() == .exited(0))
        subscriber.closeInput()
        #expect(try subscriber.waitForExit() == .exited(0))
    }

    @Test("a subscriber that stops reading is dropped past its queue bound, after every event it was sent, with a state that loses nothing")
    func slowConsumerIsDropped() throws {
        let folder = try Self.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/chat.sqlite"
        let count = 600
        let subscriber = try SpawnedHost(arguments: ["--db", database, "--max-subscription-queue", "4", "--max-output-bytes", "1024",
                                                     "--log-level", "info"] + Self.small)
        let subscription = try Self.subscribe(subscriber)

        let sender = try SpawnedHost(arguments: ["--db", database] + Self.small)
        try sender.send((0..<count).map { Self.send("s-\($0)", id: $0 + 10) })
        var senderOutput: [JSONValue] = []
        while Self.sent(in: senderOutput).count < count { senderOutput.append(try sender.nextMessage(within: 60_000)) }
        let storedIDs = Set(Self.sent(in: senderOutput).values)
        sender.closeInput()
        #expect(try sender.waitForExit() == .exited(0))

        // The subscriber's output is full (nothing read): its queue overflows and it is dropped.
        try subscriber.waitForStderr(containing: "dropped: slowConsumer", within: 60_000)
        var delivered: [String] = []
        var dropped: JSONValue?
        while dropped == nil {
            let message = try subscriber.nextMessage(within: 60_000)
            if message["method"] == "chat.message", let id = message["params"]?["message"]?["id"]?.stringValue { delivered.append(id) }
            if message["method"] == "host.subscriptionDropped" { dropped = message["params"] }
        }
        #expect(dropped?["subscriptionId"] == .string(subscription.id))
        #expect(dropped?["reason"] == "slowConsumer")
        #expect(Set(delivered).count == delivered.count, "a message was delivered twice")
        #expect(delivered.count < count)

        // Resync from the state the notice names: together with what was delivered, nothing is missing.
        var state = try #require(dropped?["state"]?.stringValue)
        var resynced: Set<String> = []
        var id = 100
        while true {
            try subscriber.send(H.request(id, "chat.changes", #"{"sinceState":"\#(state)"}"#))
            let changes = try #require(try subscriber.response(to: .integer(Int64(id))).response["result"])
            resynced.formUnion((changes["created"]?.arrayValue ?? []).compactMap(\.stringValue))
            state = try #require(changes["newState"]?.stringValue)
            id += 1
            if changes["hasMoreChanges"] != true { break }
        }
        #expect(storedIDs.subtracting(Set(delivered)).subtracting(resynced).isEmpty, "messages lost between the drop and the resync")
        subscriber.closeInput()
        #expect(try subscriber.waitForExit() == .exited(0))
    }
}
