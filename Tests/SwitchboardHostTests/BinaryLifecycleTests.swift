#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

// The built binary's lifecycle over real pipes: shutdown/exit, end of input, closed stdout, dead parent,
// dead client (issue point 8), plus the end-to-end parts of points 4 and 6.

@Suite("The binary's lifecycle", .offCooperativePool)
struct BinaryLifecycleTests {
    typealias H = BinaryHarness

    @Test("shutdown then exit ends the host with status 0", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func shutdownThenExit(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        try host.send(H.request(1, "shutdown"))
        #expect(try host.nextMessage() == ["jsonrpc": "2.0", "id": 1, "result": nil])
        try host.send(H.notification("exit"))
        // stdin stays open: `exit` alone must end the process.
        #expect(try host.waitForExit() == .exited(0))
        #expect(try host.readToEndOfOutput().isEmpty)
    }

    @Test("exit without shutdown ends the host with status 1")
    func exitWithoutShutdown() throws {
        let host = try SpawnedHost()
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage()["result"] == "pong")
        try host.send(H.notification("exit"))
        #expect(try host.waitForExit() == .exited(1))
    }

    @Test("requests after shutdown are refused with -32600 carrying their id")
    func requestsAfterShutdown() throws {
        let host = try SpawnedHost()
        try host.send(H.request(1, "shutdown"))
        #expect(try host.nextMessage()["result"] == .null)
        try host.send(H.request(2, "host.ping"))
        let refused = try host.nextMessage()
        H.expectWellFormedResponse(refused)
        #expect(H.errorCode(refused) == -32600)
        #expect(refused["id"] == 2)
        try host.send(H.notification("exit"))
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("EOF with a host.sleep in flight: its answer arrives before the host exits 0",
          arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func endOfInputDrains(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        let start = H.nowMilliseconds()
        try host.send([H.request(1, "host.sleep", #"{"ms":300}"#), H.request(2, "host.ping")])
        host.closeInput()
        let messages = try host.readToEndOfOutput()
        let elapsed = H.nowMilliseconds() - start
        #expect(messages.count == 2)
        #expect(messages.first == ["jsonrpc": "2.0", "id": 2, "result": "pong"], "the ping does not wait for the sleep")
        #expect(messages.last?["id"] == 1)
        #expect(messages.last?["result"]?["slept"] == 300)
        #expect(elapsed >= 290, "the sleep really ran (\(elapsed) ms)")
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("an initialize answer describes the server, framing, limits and namespaces")
    func initializeOverTheWire() throws {
        let host = try SpawnedHost(arguments: ["--max-message-bytes", "4096", "--max-in-flight", "3"])
        try host.send(H.request(1, "initialize", #"{"processId":null,"clientInfo":{"name":"t"}}"#))
        let reply = try host.nextMessage()
        H.expectWellFormedResponse(reply)
        let result = reply["result"]
        #expect(result?["serverInfo"]?["name"] == "switchboard")
        #expect(result?["serverInfo"]?["version"]?.stringValue != nil)
        #expect(result?["capabilities"]?["framing"] == "ndjson")
        let limits = result?["capabilities"]?["limits"]
        #expect(limits?.objectValue?.values.contains(4096) == true, "limits reflect --max-message-bytes: \(limits ?? nil)")
        #expect(limits?.objectValue?.values.contains(3) == true, "limits reflect --max-in-flight: \(limits ?? nil)")
        #expect(result?["capabilities"]?["namespaces"]?.arrayValue?.contains("host") == true)
    }

    @Test("closing our end of its stdout, then sending requests, makes the host exit 0 promptly")
    func closedStdout() throws {
        let host = try SpawnedHost()
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage()["result"] == "pong")
        host.closeOutput()
        // Keep talking: the next answers hit EPIPE. Writes may fail once the host has gone, which is fine.
        for id in 2...50 where !host.hasExited {
            try? host.send(H.request(id, "host.ping"), within: 1_000)
        }
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("closing its stdout while a slow request runs ends the host when the answer cannot be written")
    func closedStdoutDuringSlowRequest() throws {
        let host = try SpawnedHost()
        try host.send(H.request(1, "host.ping"))
        #expect(try host.nextMessage()["result"] == "pong")
        try host.send(H.request(2, "host.sleep", #"{"ms":100}"#))
        host.closeOutput()
        // stdin stays open and nothing more is sent: the failed write of the answer alone must stop the host.
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("when its parent dies the host exits, though its stdin is still open")
    func parentDeath() throws {
        // sh starts the host in the background with sh's own stdin (which the test holds open) and prints its pid.
        let script = #"exec 3<&0; "$0" serve <&3 3<&- & echo "$!"; wait"#
        let shell = try SpawnedHost(arguments: ["-c", script, H.binaryPath], executable: "/bin/sh",
                                    newProcessGroup: true, raw: true)
        defer { kill(-shell.pid, SIGKILL) }
        let hostPID = try #require(pid_t(try shell.nextLine()), "pid line: \(shell.stdoutText.debugDescription)")
        defer { kill(hostPID, SIGKILL) }

        // The host is alive and wired to the stdin the test holds (it shares the shell's stdout).
        try shell.write(H.frame(H.request(1, "host.ping"), .ndjson))
        #expect(try shell.nextLine() == #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
        #expect(!H.waitUntilGone(hostPID, within: 0))

        kill(shell.pid, SIGKILL)
        #expect(try shell.waitForExit() == .signaled(SIGKILL))
        #expect(H.waitUntilGone(hostPID, within: H.answerTimeout), "host \(hostPID) outlived its parent")
    }

    @Test("the host outlives the thread that spawned it while the parent process lives")
    func spawningThreadExits() throws {
        // PR_SET_PDEATHSIG fires when the spawning *thread* ends, not the process. Clients spawn from
        // short-lived threads all the time; the host must not take that for its parent's death.
        final class Box: @unchecked Sendable { var host: SpawnedHost?; var error: (any Error)? }
        let box = Box()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(box).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            do {
                // Spawn, and talk until the host is surely up (past its prctl) before this thread ends:
                // a long sleep whose first progress has arrived.
                let host = try SpawnedHost()
                box.host = host
                try host.send(BinaryHarness.request(0, "host.sleep", #"{"ms":600000,"steps":10000,"_meta":{"progressToken":"alive"}}"#))
                _ = try host.nextMessage()
            } catch {
                box.error = error
            }
            return nil
        }, context)
        try #require(created == 0, "pthread_create failed: \(created)")
        pthread_join(thread, nil)
        if let error = box.error { throw error }
        let host = try #require(box.host)
        // A wrongly delivered SIGTERM would stop the host reading (it drains and exits). Wait on events:
        // the running sleep reports five more steps after the thread is gone, then a ping must be answered.
        var seen = 0
        while seen < 5 {
            let message = try host.nextMessage()
            #expect(message["method"] == "$/progress", "the sleep goes on: \(message)")
            seen += 1
        }
        try host.send(H.request(1, "host.ping"))
        let (pong, _) = try host.response(to: 1)
        #expect(pong["result"] == "pong", "the host still serves after the spawning thread ended: \(pong)")
        try host.send(H.notification("$/cancelRequest", #"{"id":0}"#))
        #expect(H.errorCode(try host.response(to: 0).response) == -32800)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("initialize.processId: when that process dies the host exits")
    func clientProcessDeath() throws {
        let client = try H.spawnHelper("/bin/sleep", ["30"])
        defer {
            kill(client, SIGKILL)
            H.reap(client, within: H.answerTimeout)
        }
        let host = try SpawnedHost()
        try host.send(H.request(1, "initialize", #"{"processId":\#(client)}"#))
        H.expectWellFormedResponse(try host.nextMessage())
        // Alive and serving while the client lives: a later marker is answered, with nothing before it.
        #expect(try host.messagesBeforeMarker().isEmpty)
        #expect(!host.hasExited)
        kill(client, SIGKILL)
        #expect(H.reap(client, within: H.answerTimeout) == .signaled(SIGKILL))
        let ended = try host.waitForExit()
        #expect(ended == .exited(0))
    }
}

@Suite("JSON-RPC end to end through the binary", .offCooperativePool)
struct BinaryEndToEndTests {
    typealias H = BinaryHarness

    @Test("a batch is answered as one array frame", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func batchIsOneFrame(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        try host.send(#"[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","method":"host.ping"},{"jsonrpc":"2.0","id":"b","method":"no.such"},1]"#)
        let reply = try host.nextMessage()
        let array = try #require(reply.arrayValue, "one frame holding an array: \(reply)")
        #expect(array.count == 3)
        array.forEach { H.expectWellFormedResponse($0) }
        #expect(array.contains(["jsonrpc": "2.0", "id": 1, "result": "pong"]))
        #expect(array.contains { $0["id"] == "b" && H.errorCode($0) == -32601 })
        #expect(array.contains { $0["id"] == .null && H.errorCode($0) == -32600 })
    }

    @Test("an all-notification batch and plain notifications produce no output at all",
          arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func notificationsAreSilent(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        try host.send([
            #"[{"jsonrpc":"2.0","method":"host.ping"},{"jsonrpc":"2.0","method":"no.such"}]"#,
            H.notification("host.ping"),
            H.notification("no.such", #"{"x":1}"#),
            H.notification("host.sleep", #"{"ms":"x"}"#),
            H.request(1, "host.ping"),
        ])
        host.closeInput()
        // The one request is answered; the notifications before it (even a bad one) add nothing.
        #expect(try host.readToEndOfOutput() == [["jsonrpc": "2.0", "id": 1, "result": "pong"]])
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("`[]` is answered by one -32600 with id null")
    func emptyBatch() throws {
        let run = try H.run([], input: Array("[]\n".utf8))
        let reply = try JSONValue(parsing: run.stdout)
        #expect(reply["id"] == .null)
        #expect(H.errorCode(reply) == -32600)
    }

    @Test("a slow request does not hold up a fast one sent after it", arguments: [BinaryHarness.Wire.ndjson, .lsp])
    func slowDoesNotBlockFast(wire: BinaryHarness.Wire) throws {
        let host = try SpawnedHost(wire: wire)
        // The sleep would take ten minutes: the ping's answer coming first shows it did not wait.
        try host.send([H.request(1, "host.sleep", #"{"ms":600000}"#), H.request(2, "host.ping")])
        let first = try host.nextMessage()
        #expect(first == ["jsonrpc": "2.0", "id": 2, "result": "pong"])
        try host.send(H.notification("$/cancelRequest", #"{"id":1}"#))
        let second = try host.nextMessage()
        #expect(second["id"] == 1)
        #expect(H.errorCode(second) == -32800)
    }

    @Test("past --max-in-flight the host applies backpressure, runs one at a time and drops nothing")
    func backpressure() throws {
        let host = try SpawnedHost(arguments: ["--max-in-flight", "1"])
        try host.send((1...3).map { H.request($0, "host.sleep", #"{"ms":60,"steps":3,"_meta":{"progressToken":\#($0)}}"#) }
                      + [H.request(4, "host.ping")])
        var messages: [JSONValue] = []
        while messages.filter({ $0["method"] == nil }).count < 4 { messages.append(try host.nextMessage()) }
        let ids = messages.filter { $0["method"] == nil }.compactMap { $0["id"] }
        #expect(Set(ids) == [1, 2, 3, 4])
        // One at a time, shown by events rather than elapsed time: from a sleep's first progress to its
        // answer, nothing of another sleep appears.
        for id in 1...3 {
            let token = JSONValue.integer(Int64(id))
            let start = try #require(messages.firstIndex { $0["params"]?["token"] == token }, "no progress for \(id)")
            let end = try #require(messages.firstIndex { $0["method"] == nil && $0["id"] == token })
            let others = messages[start...end].filter { message in
                let owner = message["method"] == nil ? message["id"] : message["params"]?["token"]
                return owner != token && owner != 4
            }
            #expect(others.isEmpty, "sleep \(id) overlapped with another: \(others)")
        }
    }

    @Test("ids are echoed exactly over the wire")
    func idsEchoed() throws {
        let host = try SpawnedHost()
        let ids = [#""abc""#, "9007199254740993", "-5", "1.5", #""""#]
        try host.send(ids.map { #"{"jsonrpc":"2.0","id":\#($0),"method":"host.ping"}"# })
        var echoed: [String] = []
        for _ in ids {
            let reply = try host.nextMessage()
            #expect(reply["result"] == "pong")
            echoed.append(reply["id"]?.jsonText() ?? "(no id)")
        }
        #expect(Set(echoed) == Set(ids))
    }
}
