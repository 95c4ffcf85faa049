import GRDB
import Jansson
import SwitchboardCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Chat against the binary over real pipes: the send's answer before its `chat.messageState`, the
/// `--simulate` error paths, and processes racing on one database.
@Suite("Chat, against the binary", .offCooperativePool)
struct BinaryChatTests {
    typealias H = BinaryHarness

    static let memory = ["--backend", "memory", "--now", "2026-01-01T09:00:00Z"]

    static func send(_ id: Int, room: String = "dm-u0-u1", text: String = "hi", clientID: String) -> String {
        H.request(id, "chat.send", #"{"roomId":"\#(room)","text":"\#(text)","clientMessageId":"\#(clientID)"}"#)
    }

    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite
        var testDescription: String { rawValue }
    }

    @Test("every chat method answers over the pipes, each answer checked against its schema", arguments: Backend.allCases, [H.Wire.ndjson, .lsp])
    func everyMethod(backend: Backend, wire: H.Wire) throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let store = backend == .memory ? Self.memory : ["--db", folder + "/chat.sqlite"] + BinaryStorageTests.small
        let host = try SpawnedHost(arguments: store, wire: wire)
        var id = 0
        let users = try AnswerCoverageTests.call(host, &id, "chat.users", ["limit": 4])
        _ = try AnswerCoverageTests.call(host, &id, "chat.users", ["cursor": try #require(users["nextCursor"])])
        let rooms = try AnswerCoverageTests.call(host, &id, "chat.rooms")
        let opened = try AnswerCoverageTests.call(host, &id, "chat.open", ["userId": "u8"])
        #expect(opened["room"]?["id"] == "dm-u0-u8")
        let history = try AnswerCoverageTests.call(host, &id, "chat.history", ["roomId": "grp-team", "limit": 3])
        _ = try AnswerCoverageTests.call(host, &id, "chat.history", ["roomId": "grp-team", "cursor": try #require(history["nextCursor"])])
        let newest = try #require(history["items"]?.arrayValue?.first?["id"])
        _ = try AnswerCoverageTests.call(host, &id, "chat.markRead", ["roomId": "grp-team", "upTo": newest])
        let sent = try AnswerCoverageTests.call(host, &id, "chat.send", ["roomId": "dm-u0-u8", "text": "covered", "clientMessageId": "cov"])
        #expect(sent["message"]?["state"] == "pending")
        let notice = try host.nextMessage()
        #expect(notice["method"] == "chat.messageState" && notice["params"]?["state"] == "sent", "\(notice)")
        let again = try AnswerCoverageTests.call(host, &id, "chat.send", ["roomId": "dm-u0-u8", "text": "covered", "clientMessageId": "cov"])
        #expect(again["message"]?["duplicate"] == true)
        _ = try AnswerCoverageTests.call(host, &id, "chat.changes", ["sinceState": try #require(rooms["state"]), "maxChanges": 2])
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    /// The next `count` messages: answers to requests sent together come in any order.
    static func answers(_ host: SpawnedHost, count: Int) throws -> [JSONValue] {
        try (0..<count).map { _ in try host.nextMessage() }
    }

    @Test("every chat.send is answered pending before its chat.messageState, which names the stored message")
    func answerBeforeState() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        let count = 40
        try host.send((1...count).map { Self.send($0, clientID: "c\($0)") })
        var answered: Set<String> = []
        var stored: [String: String] = [:]
        while stored.count < count {
            let message = try host.nextMessage()
            if message["method"] == "chat.messageState" {
                let params = try #require(message["params"])
                let client = try #require(params["clientMessageId"]?.stringValue)
                #expect(answered.contains(client), "chat.messageState for \(client) came before its answer")
                #expect(params["state"] == "sent" && params["sentAt"] == "2026-01-01T09:00:00Z")
                stored[client] = params["id"]?.stringValue
            } else {
                let result = try #require(message["result"], "\(message)")
                #expect(result["message"]?["state"] == "pending")
                answered.insert(try #require(result["message"]?["clientMessageId"]?.stringValue))
            }
        }
        #expect(Set(stored.values).count == count)
        // The simulated peer answered each one: twice as many new messages in the room.
        try host.send(H.request(99, "chat.history", #"{"roomId":"dm-u0-u1","limit":\#(2 * count)}"#))
        let items = try #require(try host.response(to: 99).response["result"]?["items"]?.arrayValue)
        #expect(items.filter { $0["senderId"] == "u1" && $0["clientMessageId"] == .null }.count == count)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("sends made one after another's answer are stored in that order, each confirmed once", arguments: Backend.allCases)
    func sequentialSendsKeepOrder(backend: Backend) throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let store = backend == .memory ? Self.memory : ["--db", folder + "/chat.sqlite"] + BinaryStorageTests.small
        let host = try SpawnedHost(arguments: store)
        let count = 60
        var states: [JSONValue] = []
        for index in 0..<count {
            // Each send goes once the one before it is answered, as a client that waits for `pending` sends;
            // every third in a batch, whose array completes on the input thread (host.ping) or in a task.
            let send = Self.send(index, room: "grp-team", clientID: "seq-\(index)")
            switch index % 3 {
            case 1: try host.send("[\(send),\(H.request(1_000 + index, "host.ping"))]")
            default: try host.send(send)
            }
            let (answer, before) = index % 3 == 1 ? try Self.batchAnswer(host) : try host.response(to: .integer(Int64(index)))
            #expect(answer["result"]?["message"]?["state"] == "pending", "\(answer)")
            states += before
        }
        while states.count < count { states.append(try host.nextMessage()) }
        #expect(states.allSatisfy { $0["method"] == "chat.messageState" && $0["params"]?["state"] == "sent" }, "\(states)")
        let clients = states.compactMap { $0["params"]?["clientMessageId"]?.stringValue }
        #expect(clients == (0..<count).map { "seq-\($0)" }, "confirmed in the order sent")
        let positions = states.compactMap { $0["params"]?["id"]?.stringValue.flatMap { Int($0.drop { !$0.isNumber }) } }
        #expect(positions.count == count && positions == positions.sorted(), "stored in the order sent: \(positions)")
        host.closeInput()
        #expect(try host.readToEndOfOutput().isEmpty, "one chat.messageState per send")
        #expect(try host.waitForExit() == .exited(0))
    }

    /// The send's answer in the next batch array, and the messages read before it.
    static func batchAnswer(_ host: SpawnedHost) throws -> (JSONValue, [JSONValue]) {
        var before: [JSONValue] = []
        while true {
            let message = try host.nextMessage()
            if let array = message.arrayValue {
                return (try #require(array.first { $0["result"]?["message"] != nil }, "\(message)"), before)
            }
            before.append(message)
        }
    }

    @Test("a send in a batch that is still running holds back no send made meanwhile; it is stored once the array is out")
    func heldBatchHoldsNoLaterSend() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        // No progress token: nothing comes from the batch until its sleep is cancelled.
        try host.send("[\(Self.send(1, clientID: "held")),\(H.request(2, "host.sleep", #"{"ms":600000,"steps":10}"#))]")
        // A send made while the batch runs is answered and stored: nothing waits for the batch's send.
        try host.send(Self.send(3, clientID: "meanwhile"))
        var seen: [JSONValue] = []
        while !seen.contains(where: { $0["params"]?["clientMessageId"] == "meanwhile" && $0["method"] == "chat.messageState" }) {
            seen.append(try host.nextMessage())
        }
        #expect(seen.contains { $0["id"] == 3 && $0["result"]?["message"]?["state"] == "pending" })
        #expect(!seen.contains { $0.arrayValue != nil }, "the batch is still running")
        try host.send(H.notification("$/cancelRequest", #"{"id":2}"#))
        var array: JSONValue?
        while true {
            let message = try host.nextMessage()
            if message.arrayValue != nil {
                array = message
                continue
            }
            #expect(array != nil, "the batch's chat.messageState follows its array: \(message)")
            #expect(message["method"] == "chat.messageState" && message["params"]?["clientMessageId"] == "held"
                    && message["params"]?["state"] == "sent", "\(message)")
            break
        }
        let members = try #require(array?.arrayValue)
        #expect(members.contains { $0["id"] == 1 && $0["result"]?["message"]?["state"] == "pending" })
        #expect(members.contains { $0["id"] == 2 && $0["error"]?["code"] == -32800 })
        host.closeInput()
        try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("sends alone and in batches with a sleep that is cancelled, then end of input: each send answered pending is stored and confirmed once, after its answer",
          arguments: 0..<6)
    func mixedSendsAllConfirmed(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 0x5EED)
        let host = try SpawnedHost(arguments: Self.memory)
        var nextID = 1
        var sleeps: [Int] = []
        for _ in 0..<30 {
            let id = nextID
            nextID += 1
            switch random.next() % 4 {
            case 0, 1:
                try host.send(Self.send(id, clientID: "mix-\(id)"))
            case 2:
                // A batch of sends and a sleep that runs until cancelled: its array goes out then.
                var members: [String] = []
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    members.append(Self.send(nextID, clientID: "mix-\(nextID)"))
                    nextID += 1
                }
                sleeps.append(nextID)
                members.insert(H.request(nextID, "host.sleep", #"{"ms":600000,"steps":1000}"#),
                               at: Int(random.next() % UInt64(members.count + 1)))
                nextID += 1
                try host.send("[" + members.joined(separator: ",") + "]")
            default:
                guard !sleeps.isEmpty else { continue }
                let sleep = sleeps.remove(at: Int(random.next() % UInt64(sleeps.count)))
                try host.send(H.notification("$/cancelRequest", #"{"id":\#(sleep)}"#))
            }
        }
        // The sleeps still running are cancelled too: their batches' arrays go out, then their sends are stored.
        for sleep in sleeps { try host.send(H.notification("$/cancelRequest", #"{"id":\#(sleep)}"#)) }
        host.closeInput()
        let messages = try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        // Answers, single or in arrays, in the order read; then each confirmation after its answer.
        var answered: [String] = []
        var confirmed: [String: Int] = [:]
        for message in messages {
            for item in message.arrayValue ?? [message] {
                if let client = item["result"]?["message"]?["clientMessageId"]?.stringValue {
                    #expect(item["result"]?["message"]?["state"] == "pending", "\(item)")
                    answered.append(client)
                } else if item["method"] == "chat.messageState", let client = item["params"]?["clientMessageId"]?.stringValue {
                    #expect(answered.contains(client), "\(client) confirmed before its answer (seed \(seed))")
                    #expect(item["params"]?["state"] == "sent", "\(item)")
                    confirmed[client, default: 0] += 1
                }
            }
        }
        #expect(!answered.isEmpty)
        #expect(Set(answered).count == answered.count)
        #expect(answered.allSatisfy { confirmed[$0] == 1 }, "every pending send confirmed once (seed \(seed)): \(answered.filter { confirmed[$0] != 1 })")
        #expect(confirmed.count == answered.count)
    }

    @Test("in a batch, chat.messageState follows the batch's array, whichever member completes it")
    func batchBeforeState() throws {
        let host = try SpawnedHost(arguments: Self.memory)
        for round in 1...20 {
            let members = [Self.send(1, clientID: "b\(round)"), H.request(2, "host.ping"), Self.send(3, clientID: "c\(round)")]
            try host.send("[" + members.joined(separator: ",") + "]")
            let array = try host.nextMessage()
            #expect(array.arrayValue?.count == 3, "round \(round): \(array)")
            let states = try (1...2).map { _ in try host.nextMessage() }
            #expect(Set(states.compactMap { $0["params"]?["clientMessageId"]?.stringValue }) == ["b\(round)", "c\(round)"])
            #expect(states.allSatisfy { $0["method"] == "chat.messageState" && $0["params"]?["state"] == "sent" })
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("a send at the end of input is still stored and confirmed before the host exits")
    func sendAtEndOfInput() throws {
        let run = try H.run(Self.memory, input: H.frame(Self.send(1, clientID: "last"), .ndjson))
        #expect(run.termination == .exited(0))
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(run.stdout)")
        #expect(lines.first?.contains(#""state":"pending""#) == true)
        #expect(lines.last?.contains(#""method":"chat.messageState""#) == true && lines.last?.contains(#""state":"sent""#) == true)
    }

    @Test("a send in a batch whose other member ignores its cancel is stored and confirmed after the array the drain completes at exit",
          arguments: Backend.allCases)
    func sendBesideABusyMemberAtExit(backend: Backend) throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let store = backend == .memory ? Self.memory : ["--db", folder + "/chat.sqlite"] + BinaryStorageTests.small
        // The drain's 3 s are the send's time to answer (opening a fresh database first) on a loaded
        // machine: a send still running when the drain ends is cancelled, and nothing is stored (200 ms
        // failed under a full suite beside two builds).
        let host = try SpawnedHost(arguments: store + ["--drain-timeout", "3000"])
        // The sleep computes for ten minutes and never looks at its cancel: the drain gives up on it.
        try host.send("[\(Self.send(1, clientID: "beside-busy")),\(H.request(2, "host.sleep", #"{"ms":600000,"steps":10,"busy":true}"#))]")
        host.closeInput()
        let messages = try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        #expect(messages.count == 2, "the array, then the send's chat.messageState: \(messages)")
        let members = messages.first?.arrayValue ?? []
        #expect(members.contains { $0["id"] == 1 && $0["result"]?["message"]?["state"] == "pending" }, "\(members)")
        #expect(members.contains { $0["id"] == 2 && $0["error"]?["code"] == -32800 }, "\(members)")
        let state = messages.last
        #expect(state?["method"] == "chat.messageState" && state?["params"]?["clientMessageId"] == "beside-busy"
                && state?["params"]?["state"] == "sent", "\(messages)")
        guard backend == .sqlite else { return }
        // Stored: a later process on the file finds it.
        let reader = try H.run(store, input: H.frame(H.request(3, "chat.history", #"{"roomId":"dm-u0-u1"}"#), .ndjson))
        #expect(reader.termination == .exited(0))
        #expect(reader.stdout.contains("beside-busy"), "\(reader.stdout)")
    }

    @Test("--simulate rate-limit: chat.users and chat.send answer -32029 with resetAt and retryAfterMs")
    func rateLimit() throws {
        let host = try SpawnedHost(arguments: Self.memory + ["--simulate", "rate-limit"])
        try host.send([H.request(1, "chat.users"), Self.send(2, clientID: "r1")])
        for answer in try Self.answers(host, count: 2) {
            let error = try #require(answer["error"], "\(answer)")
            #expect(error["code"] == -32029)
            #expect(error["data"] == ["resetAt": "2026-01-01T09:01:00Z", "retryAfterMs": 60_000])
        }
        #expect(try host.messagesBeforeMarker().isEmpty)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("--simulate server-error: -32060 with a debugId that the host's stderr log line names, for every chat method")
    func serverError() throws {
        let host = try SpawnedHost(arguments: Self.memory + ["--simulate", "server-error"])
        // chat.history, chat.open and chat.markRead name a param for an unknown item themselves: their
        // service failures went unlogged.
        try host.send([H.request(1, "chat.users", #"{"limit":5}"#), Self.send(2, clientID: "e1"),
                       H.request(3, "chat.history", #"{"roomId":"grp-team"}"#), H.request(4, "chat.open", #"{"userId":"u1"}"#),
                       H.request(5, "chat.markRead", #"{"roomId":"grp-team","upTo":"msg-1"}"#)])
        var ids: [String] = []
        for answer in try Self.answers(host, count: 5) {
            let error = try #require(answer["error"], "\(answer)")
            #expect(error["code"] == -32060)
            ids.append(try #require(error["data"]?["debugId"]?.stringValue))
        }
        #expect(Set(ids).count == 5)
        host.closeInput()
        try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        for id in ids {
            #expect(host.stderrText.split(separator: "\n").contains { $0.contains("debugId=\(id)") }, "\(host.stderrText)")
        }
    }

    @Test("--simulate slow: the send stays pending until the next chat request, then it is confirmed")
    func slow() throws {
        let host = try SpawnedHost(arguments: Self.memory + ["--simulate", "slow"])
        try host.send(Self.send(1, clientID: "s1"))
        let answer = try host.nextMessage()
        #expect(answer["id"] == 1 && answer["result"]?["message"]?["state"] == "pending", "\(answer)")
        try host.send(H.request(2, "chat.rooms"))
        var confirmed = false
        var roomsAnswered = false
        while !(confirmed && roomsAnswered) {
            let message = try host.nextMessage()
            if message["method"] == "chat.messageState" {
                #expect(message["params"]?["state"] == "sent" && message["params"]?["clientMessageId"] == "s1")
                confirmed = true
            } else {
                #expect(message["id"] == 2)
                roomsAnswered = true
            }
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("a send the database cannot store is answered pending, then chat.messageState failed with the reason")
    func failedSend() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("chmod -R u+w '\(folder)'; rm -rf '\(folder)'") }
        let database = folder + "/chat.sqlite"
        let seed = try H.run(["seed", "--db", database] + BinaryStorageTests.small, raw: true, timeout: 60_000)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        #expect(chmod(database, 0o444) == 0)
        let host = try SpawnedHost(arguments: ["--db", database] + BinaryStorageTests.small)
        try host.send(Self.send(1, clientID: "ro"))
        let answer = try host.response(to: 1, within: 60_000).response
        #expect(answer["result"]?["message"]?["state"] == "pending", "\(answer)")
        let notice = try host.nextMessage()
        #expect(notice["method"] == "chat.messageState")
        #expect(notice["params"]?["state"] == "failed")
        #expect(notice["params"]?["reason"]?.stringValue?.contains("read-only") == true, "\(notice)")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("two processes on one database, as two users, read each other's messages once confirmed")
    func twoUsersChat() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let store = ["--db", folder + "/two.sqlite"] + BinaryStorageTests.small
        let demo = try SpawnedHost(arguments: store)
        let ada = try SpawnedHost(arguments: store + ["--chat-user", "u1"])
        var id = 0
        _ = try AnswerCoverageTests.call(demo, &id, "chat.send", ["roomId": "dm-u0-u1", "text": "from demo", "clientMessageId": "d1"])
        let confirmed = try demo.nextMessage()
        let sentID = try #require(confirmed["params"]?["id"], "\(confirmed)")
        let seen = try AnswerCoverageTests.call(ada, &id, "chat.history", ["roomId": "dm-u0-u1", "limit": 1])
        #expect(seen["items"]?.arrayValue?.first?["id"] == sentID)
        #expect(seen["items"]?.arrayValue?.first?["senderId"] == "u0")
        let rooms = try AnswerCoverageTests.call(ada, &id, "chat.rooms")
        let room = try #require(rooms["items"]?.arrayValue?.first { $0["id"] == "dm-u0-u1" })
        #expect(room["lastMessage"]?["id"] == sentID && (room["unreadCount"]?.int64Value ?? 0) >= 1)
        _ = try AnswerCoverageTests.call(ada, &id, "chat.send", ["roomId": "dm-u0-u1", "text": "from ada", "clientMessageId": "d1"])
        let reply = try #require(try ada.nextMessage()["params"]?["id"])
        #expect(reply != sentID, "the same client message id from another sender is another message")
        let back = try AnswerCoverageTests.call(demo, &id, "chat.history", ["roomId": "dm-u0-u1", "limit": 2])
        #expect(back["items"]?.arrayValue?.map { $0["id"] } == [reply, sentID])
        for host in [demo, ada] {
            host.closeInput()
            #expect(try host.waitForExit() == .exited(0))
        }
    }

    @Test("--chat-user takes a demo user's id")
    func chatUserOption() throws {
        let run = try H.run(["call", "--backend", "memory", "--chat-user", "nobody", "chat.rooms"], raw: true)
        #expect(run.termination == .exited(64) || run.termination != .exited(0))
        #expect(run.stderr.contains("--chat-user takes a user id u0...u12"), "\(run.stderr)")
    }

    @Test("processes opening one direct room and sending one client message id at once store one room and one message")
    func racingProcesses() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/race.sqlite"
        let seed = try H.run(["seed", "--db", database] + BinaryStorageTests.small, raw: true, timeout: 60_000)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        let calls = (1...8).flatMap { _ in [
            ["call", "chat.open", #"{"userId":"u9"}"#],
            ["call", "chat.send", #"{"roomId":"grp-team","text":"once","clientMessageId":"same"}"#],
        ] }
        let hosts = try calls.map { try SpawnedHost(arguments: $0 + ["--db", database] + BinaryStorageTests.small, raw: true) }
        var created = 0
        var pending = 0
        for (host, call) in zip(hosts, calls) {
            host.closeInput()
            try host.readToEndOfOutput(within: 60_000)
            #expect(try host.waitForExit(within: 60_000) == .exited(0), "\(host.stderrText)")
            let result = try JSONValue(parsing: host.stdoutText)
            if call[1] == "chat.open" {
                #expect(result["room"]?["id"] == "dm-u0-u9")
                if result["created"] == true { created += 1 }
            } else if result["message"]?["state"] == "pending" {
                pending += 1
            } else {
                #expect(result["message"]?["duplicate"] == true, "\(result)")
            }
        }
        #expect(created == 1)
        #expect(pending >= 1)
        let queue = try DatabaseQueue(path: database)
        let (rooms, messages) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_room WHERE id = 'dm-u0-u9'"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message WHERE client_message_id = 'same'"))
        }
        #expect(rooms == 1 && messages == 1)
    }

    @Test("a burst of sends is confirmed in the order stored, and a message the database refuses fails alone, the rest sent")
    func burstInOrderFailingAlone() throws {
        let folder = try BinaryStorageTests.folder()
        defer { _ = system("rm -rf '\(folder)'") }
        let database = folder + "/burst.sqlite"
        let seed = try H.run(["seed", "--db", database] + BinaryStorageTests.small, raw: true, timeout: 60_000)
        #expect(seed.termination == .exited(0), "\(seed.stderr)")
        // The database refuses the messages whose text is "poison" (as a constraint would).
        try DatabaseQueue(path: database).write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse_poison BEFORE INSERT ON chat_message WHEN NEW.text = 'poison'
                BEGIN SELECT RAISE(ABORT, 'poisoned'); END
                """)
        }
        let host = try SpawnedHost(arguments: ["--db", database] + BinaryStorageTests.small)
        let count = 300
        let poisoned: Set<Int> = [7, 150, 151, 299]
        try host.send((1...count).map { Self.send($0, room: "grp-team", text: poisoned.contains($0) ? "poison" : "hi", clientID: "p\($0)") })
        var states: [(client: Int, state: String, id: Int?)] = []
        while states.count < count {
            let message = try host.nextMessage()
            guard message["method"] == "chat.messageState" else {
                #expect(message["result"]?["message"]?["state"] == "pending", "\(message)")
                continue
            }
            let params = try #require(message["params"])
            let client = try #require(params["clientMessageId"]?.stringValue.flatMap { Int($0.dropFirst()) })
            states.append((client, params["state"]?.stringValue ?? "?", params["id"]?.stringValue.flatMap { Int($0.dropFirst(4)) }))
            if poisoned.contains(client) {
                #expect(params["state"] == "failed" && params["reason"] != nil && params["debugId"] != nil, "\(params)")
            } else {
                #expect(params["state"] == "sent", "\(params)")
            }
        }
        #expect(Set(states.map(\.client)) == Set(1...count))
        // Confirmed in storage order: the ids of the sent ones ascend as they come.
        let ids = states.compactMap(\.id)
        #expect(ids.count == count - poisoned.count && ids == ids.sorted())
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
        let stored = try DatabaseQueue(path: database).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message WHERE client_message_id LIKE 'p%'")
        }
        #expect(stored == count - poisoned.count)
    }
}
