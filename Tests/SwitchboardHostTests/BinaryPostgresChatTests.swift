import Jansson
import PostgresTesting
import Testing

/// Two hosts on one PostgreSQL database over TCP on 127.0.0.1, as two users on two machines would run
/// them: a message sent on one is pushed to the other (LISTEN/NOTIFY wakes it, the change log says what
/// is new), and a lost connection in the middle of a burst loses no message that was answered sent.
@Suite("Chat across two hosts on one PostgreSQL database, against the binary", .offCooperativePool,
       .enabled(if: TestPostgres.isAvailable, Comment(rawValue: TestPostgres.skipReason)))
struct BinaryPostgresChatTests {
    typealias H = BinaryHarness
    typealias Push = BinaryChatPushTests

    /// A host on `url` acting as `user`.
    static func host(_ url: String, user: String = "u0") throws -> SpawnedHost {
        try SpawnedHost(arguments: ["--db", url, "--chat-user", user] + Push.small)
    }

    /// Reads `host`'s output until every one of `clientIDs` sent with request ids from `firstID` has its
    /// outcome: an error answer, or a pending answer and then its `chat.messageState`. Returns it all.
    static func outcomes(_ host: SpawnedHost, clientIDs: [String], firstID: Int, seen: [JSONValue] = []) throws -> [JSONValue] {
        var output = seen
        var open = Set(clientIDs)
        func settle(_ message: JSONValue) {
            if let id = message["id"]?.int64Value, message["error"] != nil, id >= firstID, id < firstID + clientIDs.count {
                open.remove(clientIDs[Int(id) - firstID])
            }
            if message["method"] == "chat.messageState", let client = message["params"]?["clientMessageId"]?.stringValue {
                open.remove(client)
            }
        }
        output.forEach(settle)
        while !open.isEmpty {
            let message = try host.nextMessage(within: 60_000)
            output.append(message)
            settle(message)
        }
        return output
    }

    /// The `chat.message` pushes of subscription `id` among `seen`, then read from `host`, up to the one
    /// for `marker`.
    static func pushes(_ host: SpawnedHost, subscription id: String, until marker: String, seen: [JSONValue] = []) throws -> [JSONValue] {
        var pushed: [JSONValue] = []
        var seen = seen[...]
        while true {
            let message = try seen.popFirst() ?? host.nextMessage(within: 60_000)
            guard message["method"] == "chat.message" else { continue }
            #expect(message["params"]?["subscriptionId"] == .string(id))
            let pushedMessage = message["params"]?["message"] ?? .null
            if pushedMessage["clientMessageId"]?.stringValue == marker { return pushed }
            pushed.append(pushedMessage)
        }
    }

    @Test("chat.send on one host is pushed to the other: pending then sent, exactly once, in order; a client id sent twice is stored once")
    func sendOnOnePushOnTheOther() async throws {
        try await TestPostgres.withFreshDatabaseURL { url, _ in
            // Two hosts on an empty database: the first to need it migrates and seeds it.
            let receiver = try Self.host(url, user: "u1")
            let sender = try Self.host(url)
            let subscription = try Push.subscribe(receiver)

            let clientIDs = (0..<40).map { "p-\($0)" }
            try sender.send(clientIDs.enumerated().map { Push.send($0.element, id: $0.offset + 10) })
            let output = try Self.outcomes(sender, clientIDs: clientIDs, firstID: 10)
            // Each answer is pending, and its messageState (sent, with an id) comes after it.
            for (offset, client) in clientIDs.enumerated() {
                let answer = try #require(output.firstIndex { $0["id"]?.int64Value == Int64(offset + 10) })
                #expect(output[answer]["result"]?["message"]?["state"] == "pending")
                let state = try #require(output.firstIndex {
                    $0["method"] == "chat.messageState" && $0["params"]?["clientMessageId"]?.stringValue == client
                })
                #expect(answer < state && output[state]["params"]?["state"] == "sent")
            }
            let sent = Push.sent(in: output)
            #expect(sent.count == clientIDs.count)

            // The same client id again: the stored message, a duplicate; nothing is stored or pushed again.
            try sender.send(Push.send("p-7", id: 500))
            let again = try #require(try sender.response(to: 500).response["result"]?["message"])
            #expect(again["duplicate"] == true && again["id"] == sent["p-7"].map(JSONValue.string))
            try sender.send(Push.send("marker", id: 501))

            let pushed = try Self.pushes(receiver, subscription: subscription.id, until: "marker")
            // Once each, in storage order (pipelined sends are stored in the order the send queue took them,
            // as on SQLite: BinaryChatPushTests), each with the id its sender was told.
            let pushedClients = pushed.compactMap { $0["clientMessageId"]?.stringValue }
            #expect(pushedClients.sorted() == clientIDs.sorted(), "pushed once each")
            let positions = pushed.compactMap { $0["id"]?.stringValue.flatMap { Int($0.dropFirst("msg-".count)) } }
            #expect(positions.count == pushed.count && positions == positions.sorted(), "pushed in storage order")
            #expect(pushed.compactMap { $0["id"]?.stringValue } == pushedClients.compactMap { sent[$0] })
            #expect(pushed.allSatisfy { $0["state"] == "sent" && $0["senderId"] == "u0" })

            // Storage: each client id once.
            let stored = try Push.history(receiver, firstID: 600).compactMap { $0["clientMessageId"]?.stringValue }
            #expect(stored.filter { $0.hasPrefix("p-") }.sorted() == clientIDs.sorted())
            for host in [sender, receiver] {
                host.closeInput()
                #expect(try host.waitForExit() == .exited(0))
            }
        }
    }

    /// Found a host that hung every time (a `ROLLBACK` on a connection the server had ended, then
    /// requests stranded in the pool), and then one that left sends without an outcome in most runs:
    /// postgres-nio drops a statement given to a connection whose socket has closed, so a write whose
    /// session ended between two statements, or a read leased a connection just closed, waited for
    /// good (`PostgresSessionWatch`).
    @Test("both hosts' sessions ended by the server in the middle of a burst of sends: every send answered sent is in the database, once; nothing stays pending; the subscriber resumes")
    func sessionsEndedDuringBurst() async throws {
        try await TestPostgres.withFreshDatabaseURL { url, database in
            try await Self.burst(url) {
                // pg_terminate_backend: what a restart does to the sessions, the server staying up.
                let ended = try await TestPostgres.terminateSessions(database: database)
                #expect(ended > 0)
            }
        }
    }

    @Test("the server restarted in the middle of a burst of sends: every send answered sent is in the database, once; nothing stays pending; both hosts serve again; the subscriber resumes")
    func serverRestartedDuringBurst() async throws {
        // A cluster of its own: the shared one serves the other suites while this runs.
        try await DedicatedPostgresCluster.with { cluster in
            try await Self.burst(cluster.url) { try cluster.restart() }
        }
    }

    @Test("the server frozen in the middle of a burst of sends: the host still answers host.ping, every send gets its outcome (sent, or failed as unavailable); thawed, a send is stored")
    func serverFrozenDuringBurst() async throws {
        try await DedicatedPostgresCluster.with { cluster in
            // connect_timeout 4 s: how long a wait goes on before the server is probed, and the probe's bound.
            let host = try Self.host(cluster.url + (cluster.url.contains("?") ? "&" : "?") + "connect_timeout=4")
            let clientIDs = (0..<100).map { "f-\($0)" }
            try host.send(clientIDs.enumerated().map { Push.send($0.element, id: $0.offset + 10) })
            var seen: [JSONValue] = []
            while Push.sent(in: seen).count < 10 { seen.append(try host.nextMessage(within: 60_000)) }
            // SIGSTOP: the sockets stay open and nothing answers, as a frozen machine or a cut network.
            try cluster.freeze()
            try host.send(H.request(5_000, "host.ping", "{}"))
            while !seen.contains(where: { $0["id"]?.int64Value == 5_000 }) { seen.append(try host.nextMessage(within: 60_000)) }
            let output = try Self.outcomes(host, clientIDs: clientIDs, firstID: 10, seen: seen)
            for message in output {
                if message["id"]?.int64Value == 5_000 { #expect(message["result"] != nil, "\(message)") }
                if let code = H.errorCode(message) { #expect(code == -32050, "\(message)") }
                if message["method"] == "chat.messageState", message["params"]?["state"] == "failed" {
                    #expect(message["params"]?["reason"]?.stringValue?.isEmpty == false)
                }
            }
            #expect(output.contains { $0["method"] == "chat.messageState" && $0["params"]?["state"] == "failed" }
                    || output.contains { H.errorCode($0) == -32050 }, "no send failed while the server was frozen")
            try cluster.thaw()
            // The pool connects again (with its backoff): a send is stored, at the latest after a few tries.
            var stored = false
            for attempt in 0..<10 where !stored {
                try host.send(Push.send("after-\(attempt)", id: 1_000 + attempt))
                stored = try Self.outcomes(host, clientIDs: ["after-\(attempt)"], firstID: 1_000 + attempt).contains {
                    $0["method"] == "chat.messageState" && $0["params"]?["state"] == "sent"
                }
            }
            #expect(stored)
            // No send answered failed is stored unless its answer said it may be (the batch's COMMIT was under way).
            let storedIDs = Set(try Push.history(host, firstID: 2_000).compactMap { $0["clientMessageId"]?.stringValue })
            for message in output {
                if let params = message["params"], message["method"] == "chat.messageState", params["state"] == "failed",
                   let client = params["clientMessageId"]?.stringValue, storedIDs.contains(client) {
                    #expect(params["reason"]?.stringValue?.contains("may be stored") == true, "\(client) is stored but was answered \(message)")
                }
                if let id = message["id"]?.int64Value, H.errorCode(message) != nil, (10..<10 + Int64(clientIDs.count)).contains(id) {
                    #expect(!storedIDs.contains(clientIDs[Int(id) - 10]), "\(clientIDs[Int(id) - 10]) is stored but was answered \(message)")
                }
            }
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
        }
    }

    /// Two hosts on `url` (empty) each send a burst of 200 messages to the room the second host's
    /// subscription follows; once 20 of the first host's are stored, `interrupt` ends the server's
    /// sessions while the rest are in flight. Then: each send has its outcome (sent, or failed with a
    /// reason or a storage error), both hosts store again, every message answered sent is stored once
    /// under the id it was given, and the subscriber is pushed every stored message once.
    static func burst(_ url: String, interrupt: () async throws -> Void) async throws {
        let first = try Self.host(url)
        let second = try Self.host(url, user: "u1")
        let subscription = try Push.subscribe(second)
        let count = 200
        let firstIDs = (0..<count).map { "a-\($0)" }
        let secondIDs = (0..<count).map { "b-\($0)" }
        try first.send(firstIDs.enumerated().map { Push.send($0.element, id: $0.offset + 10) })
        try second.send(secondIDs.enumerated().map { Push.send($0.element, id: $0.offset + 10) })

        // Once 20 of the first host's sends are stored, every session of both hosts ends while the rest
        // are in flight.
        var seen: [JSONValue] = []
        while Push.sent(in: seen).count < 20 { seen.append(try first.nextMessage(within: 60_000)) }
        try await interrupt()

        let firstOutput = try Self.outcomes(first, clientIDs: firstIDs, firstID: 10, seen: seen)
        let secondOutput = try Self.outcomes(second, clientIDs: secondIDs, firstID: 10)
        var reportedSent = Push.sent(in: firstOutput)
        reportedSent.merge(Push.sent(in: secondOutput)) { one, _ in one }
        // What failed failed with a documented storage error, by reason or by the answer's code.
        for message in firstOutput + secondOutput {
            if message["method"] == "chat.messageState", message["params"]?["state"] == "failed" {
                #expect(message["params"]?["reason"]?.stringValue?.isEmpty == false)
            }
            if let code = H.errorCode(message) { #expect(code == -32050, "\(message)") }
        }

        // Both pools connect again: one more send each is stored.
        try first.send(Push.send("after-a", id: 1_000))
        try second.send(Push.send("after-b", id: 1_000))
        #expect(try Self.outcomes(first, clientIDs: ["after-a"], firstID: 1_000).contains {
            $0["method"] == "chat.messageState" && $0["params"]?["state"] == "sent" })
        let secondAfter = try Self.outcomes(second, clientIDs: ["after-b"], firstID: 1_000)
        #expect(secondAfter.contains { $0["method"] == "chat.messageState" && $0["params"]?["state"] == "sent" })

        // The database, read by a third host: every message answered sent is there, once, under its id.
        let reader = try Self.host(url)
        let stored = try Push.history(reader, firstID: 2_000)
        var storedByClient: [String: [String]] = [:]
        for message in stored {
            if let client = message["clientMessageId"]?.stringValue, let id = message["id"]?.stringValue { storedByClient[client, default: []].append(id) }
        }
        for (client, id) in reportedSent {
            #expect(storedByClient[client] == [id], "\(client) was answered sent as \(id) but the database has \(storedByClient[client] ?? [])")
        }
        #expect(storedByClient.values.allSatisfy { $0.count == 1 })

        // The subscriber on the second host resumed from its state: the first host's stored messages reach it once.
        try first.send(Push.send("marker", id: 3_000))
        let pushed = try Self.pushes(second, subscription: subscription.id, until: "marker", seen: secondOutput + secondAfter)
        let pushedIDs = pushed.compactMap { $0["id"]?.stringValue }
        #expect(Set(pushedIDs).count == pushedIDs.count, "a message was pushed twice")
        let storedIDs = stored.compactMap { message in
            message["clientMessageId"]?.stringValue.map { $0 != "marker" } == true ? message["id"]?.stringValue : nil
        }
        #expect(Set(storedIDs).isSubset(of: Set(pushedIDs)), "stored messages the subscriber never got")
        for host in [first, second, reader] {
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
        }
    }
}
