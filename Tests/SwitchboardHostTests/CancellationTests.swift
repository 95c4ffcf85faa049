import Jansson
import JSONRPC
import Testing

// Cancellation and progress (issue point 7): $/cancelRequest and MCP's notifications/cancelled answer
// -32800 and really stop the handler; progress tokens get $/progress; the host's own notifications
// go out through Connection.notify.

@Suite("Cancellation")
struct CancellationTests {
    /// Starts `test.count` as `id`, waits for a few steps, cancels it with `cancel`, and checks that it
    /// answers -32800 and that its counter stops for good.
    func expectCancelled(id: JSONValue, cancel: (String, JSONValue), sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let host = try Harness()
        try await host.send(json: request("test.count", params: ["key": "victim"], id: id))
        try await host.probe.waitFor("step:victim", times: 3)
        try await host.notify(cancel.0, params: cancel.1)
        let reply = try await host.reply(to: id)
        let error = expectError(reply, id: id, code: -32800, sourceLocation: sourceLocation)
        #expect(error["message"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(host.probe.count(of: "cancelled:victim") == 1, "the handler saw the cancellation", sourceLocation: sourceLocation)
        let stepsAtCancel = host.probe.count(of: "step:victim")
        // A control request takes several awaited steps of its own; the victim must not advance meanwhile.
        expectResult(try await host.call("test.count", params: ["key": "control", "steps": 5], id: "control"), id: "control", 5,
                     sourceLocation: sourceLocation)
        expectResult(try await host.call("test.count", params: ["key": "control2", "steps": 5], id: "control2"), id: "control2", 5,
                     sourceLocation: sourceLocation)
        #expect(host.probe.count(of: "step:victim") == stepsAtCancel, "the cancelled handler stopped counting",
                sourceLocation: sourceLocation)
        try await host.waitUntilIdle()
        #expect(host.connection.inFlightCount == 0, sourceLocation: sourceLocation)
        #expect(host.writtenFrames.filter { $0.id == id }.count == 1, "answered once", sourceLocation: sourceLocation)
    }

    @Test("$/cancelRequest {\"id\": X} answers X with -32800 and the handler really stops",
          arguments: [JSONValue.integer(7), "seven", 7.5, .integer(Int64.max), .null])
    func lspCancel(id: JSONValue) async throws {
        try await expectCancelled(id: id, cancel: ("$/cancelRequest", ["id": id]))
    }

    @Test("MCP notifications/cancelled {\"requestId\": X} answers X with -32800 and the handler really stops",
          arguments: [JSONValue.integer(8), "eight"])
    func mcpCancel(id: JSONValue) async throws {
        try await expectCancelled(id: id, cancel: ("notifications/cancelled", ["requestId": id, "reason": "user pressed stop"]))
    }

    @Test("cancelling host.sleep answers -32800 and its progress stops")
    func cancelSleep() async throws {
        let host = try Harness()
        try await host.send(json: request("host.sleep", params: ["ms": 600_000, "steps": 10_000, "_meta": ["progressToken": "victim"]], id: 1))
        _ = try await host.frame(where: "first progress") { $0.method == "$/progress" }
        try await host.notify("$/cancelRequest", params: ["id": 1])
        expectError(try await host.reply(to: 1), id: 1, code: -32800)
        let progressAtCancel = host.frames.elements.filter { $0.json["params"]?["token"] == "victim" }.count
        let control = try await host.call("host.sleep", params: ["ms": 20, "steps": 4, "_meta": ["progressToken": "control"]], id: 2)
        expectResult(control, id: 2, ["slept": 20, "steps": 4])
        #expect(host.frames.elements.filter { $0.json["params"]?["token"] == "victim" }.count == progressAtCancel,
                "no progress after the cancellation was answered")
        let framesAfterCancel = host.writtenFrames.drop(while: { $0.id != 1 }).dropFirst()
        #expect(!framesAfterCancel.contains { $0.json["params"]?["token"] == "victim" })
    }

    @Test("a request still queued behind the in-flight bound can be cancelled; its handler never starts")
    func cancelQueued() async throws {
        let host = try Harness(limits: ConnectionLimits(maxInFlight: 1))
        try await host.send(json: request("test.block", params: ["key": "running"], id: 1))
        try await host.probe.waitFor("start:running")
        try await host.send(json: request("test.block", params: ["key": "queued"], id: 2))
        try await host.notify("$/cancelRequest", params: ["id": 2])
        host.probe.open("running")
        expectResult(try await host.reply(to: 1), id: 1, "running")
        expectError(try await host.reply(to: 2), id: 2, code: -32800)
        try await host.waitUntilIdle()
        #expect(!host.probe.events.elements.contains("start:queued"), "the cancelled request never ran")
        #expect(host.connection.inFlightCount == 0)
        expectResult(try await host.call("test.fast", id: 3), id: 3, "fast")
    }

    @Test("cancelling a blocked request frees its slot for the next one")
    func cancelFreesSlot() async throws {
        let host = try Harness(limits: ConnectionLimits(maxInFlight: 1))
        try await host.send(json: request("test.block", params: ["key": "stuck"], id: 1))
        try await host.probe.waitFor("start:stuck")
        try await host.send(json: request("test.fast", id: 2))
        try await host.notify("$/cancelRequest", params: ["id": 1])
        expectError(try await host.reply(to: 1), id: 1, code: -32800)
        expectResult(try await host.reply(to: 2), id: 2, "fast")
        #expect(host.probe.events.elements.contains("cancelled:stuck"))
    }

    @Test("cancelling an unknown id, or naming none, is ignored", arguments: [
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":424242}}"#,
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"nobody"}}"#,
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{}}"#,
        #"{"jsonrpc":"2.0","method":"$/cancelRequest"}"#,
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}"#,
        #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":424242}}"#,
    ])
    func cancelUnknown(message: String) async throws {
        let host = try Harness()
        try await host.send(json: request("test.block", params: ["key": "bystander"], id: 1))
        try await host.probe.waitFor("start:bystander")
        try await host.send(message)
        let pong = try await host.call("host.ping", id: 2)
        #expect(host.writtenFrames.map(\.text) == [pong.text], "the cancellation got no answer")
        host.probe.open("bystander")
        expectResult(try await host.reply(to: 1), id: 1, "bystander")
    }

    @Test("cancelling a request that has already been answered changes nothing")
    func cancelFinished() async throws {
        let host = try Harness()
        expectResult(try await host.call("test.fast", id: 1), id: 1, "fast")
        try await host.notify("$/cancelRequest", params: ["id": 1])
        expectResult(try await host.call("host.ping", id: 2), id: 2, "pong")
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 2)
    }

    @Test("cancelling one request leaves another with a different id running")
    func cancelIsTargeted() async throws {
        let host = try Harness()
        try await host.send(json: request("test.count", params: ["key": "victim"], id: 1))
        try await host.send(json: request("test.block", params: ["key": "other"], id: 2))
        try await host.probe.waitFor("step:victim")
        try await host.probe.waitFor("start:other")
        try await host.notify("$/cancelRequest", params: ["id": 1])
        expectError(try await host.reply(to: 1), id: 1, code: -32800)
        host.probe.open("other")
        expectResult(try await host.reply(to: 2), id: 2, "other")
        #expect(!host.probe.events.elements.contains("cancelled:other"))
    }

    @Test("a cancelled element of a batch answers -32800 inside the batch's one array")
    func cancelInBatch() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc":"2.0","method":"test.count","params":{"key":"v"},"id":"v"},{"jsonrpc":"2.0","method":"host.ping","id":"p"}]"#)
        try await host.probe.waitFor("step:v")
        try await host.notify("$/cancelRequest", params: ["id": "v"])
        let answers = try #require(try await host.frame(0).json.arrayValue)
        try #require(answers.count == 2)
        expectErrorValue(answers[0], id: "v", code: -32800)
        #expect(answers[1] == ["jsonrpc": "2.0", "id": "p", "result": "pong"])
    }

    @Test("cancelAll cancels every request in flight")
    func cancelAll() async throws {
        let host = try Harness()
        try await host.send(json: request("test.count", params: ["key": "a"], id: 1))
        try await host.send(json: request("test.block", params: ["key": "b"], id: 2))
        try await host.probe.waitFor("step:a")
        try await host.probe.waitFor("start:b")
        host.connection.cancelAll(heldWorkDeadline: monotonicNanoseconds() + 1_000_000_000)
        expectError(try await host.reply(to: 1), id: 1, code: -32800)
        expectError(try await host.reply(to: 2), id: 2, code: -32800)
    }
}

@Suite("Progress and notifications from the host")
struct ProgressTests {
    @Test("host.sleep with a progress token sends $/progress {token, value {step, of}} before its result",
          arguments: [JSONValue.string("tok-1"), .integer(77), .integer(Int64.max)])
    func progress(token: JSONValue) async throws {
        let host = try Harness()
        let reply = try await host.call("host.sleep", params: ["ms": 8, "steps": 4, "_meta": ["progressToken": token]], id: "s")
        expectResult(reply, id: "s", ["slept": 8, "steps": 4])
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        #expect(frames.count == 5)
        let progress = frames.dropLast()
        #expect(frames.last?.id == "s", "the result comes after every progress notification")
        for (index, frame) in progress.enumerated() {
            #expect(frame.json == [
                "jsonrpc": "2.0", "method": "$/progress",
                "params": ["token": token, "value": ["step": .integer(Int64(index + 1)), "of": 4]],
            ])
            #expect(frame.json.objectValue?.keys == ["jsonrpc", "method", "params"], "a notification has no id: \(frame.text)")
        }
        #expect(progress.allSatisfy { RawJSON.memberText(named: "token", inObject: RawJSON.memberText(named: "params", inObject: $0.text) ?? "") == token.jsonText() })
    }

    @Test("host.sleep without a progress token sends no $/progress")
    func noToken() async throws {
        let host = try Harness()
        let reply = try await host.call("host.sleep", params: ["ms": 4, "steps": 4], id: 1)
        expectResult(reply, id: 1, ["slept": 4, "steps": 4])
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.map(\.text) == [reply.text])
        let withMeta = try await host.call("host.sleep", params: ["ms": 4, "steps": 4, "_meta": [:]], id: 2)
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.map(\.text) == [reply.text, withMeta.text])
    }

    @Test("two requests with their own tokens get their own progress")
    func twoTokens() async throws {
        let host = try Harness()
        try await host.send(json: request("host.sleep", params: ["ms": 6, "steps": 3, "_meta": ["progressToken": "a"]], id: 1))
        try await host.send(json: request("host.sleep", params: ["ms": 6, "steps": 2, "_meta": ["progressToken": "b"]], id: 2))
        _ = try await host.reply(to: 1)
        _ = try await host.reply(to: 2)
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        #expect(frames.filter { $0.json["params"]?["token"] == "a" }.count == 3)
        #expect(frames.filter { $0.json["params"]?["token"] == "b" }.count == 2)
    }

    @Test("Connection.notify from outside any request reaches the output as a notification")
    func outboundNotify() async throws {
        let host = try Harness(framing: nil)
        host.connection.notify(method: "inbox/changed", params: ["folder": "INBOX", "count": 3])
        host.connection.notify(method: "host/heartbeat", params: nil)
        try host.connection.notify(method: "chat/message", encoding: ["text": "hi"])
        // Held until the input shows its framing (HeldOutputTests), then sent ahead of the first answer.
        expectResult(try await host.call("host.ping", id: 1), id: 1, "pong")
        let frames = try await host.frames.wait(for: "three notifications") { $0.count >= 3 ? Array($0.prefix(3)) : nil }
        #expect(frames[0].json == ["jsonrpc": "2.0", "method": "inbox/changed", "params": ["folder": "INBOX", "count": 3]])
        #expect(frames[1].json == ["jsonrpc": "2.0", "method": "host/heartbeat"])
        #expect(frames[2].json == ["jsonrpc": "2.0", "method": "chat/message", "params": ["text": "hi"]])
        #expect(host.outputText.hasSuffix("}\n"), "NDJSON, as the input showed")
    }

    @Test("Connection.notify from a detached task, in LSP framing, is LSP-framed")
    func outboundNotifyLSP() async throws {
        let host = try Harness(framing: nil)
        let body = #"{"jsonrpc":"2.0","id":1,"method":"host.ping"}"#
        try await host.send(raw: "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        _ = try await host.reply(to: 1)
        let connection = host.connection
        await Task.detached { connection.notify(method: "x/event", params: ["n": 1]) }.value
        let event = try await host.frame(where: "x/event") { $0.method == "x/event" }
        #expect(host.outputText.hasSuffix("Content-Length: \(event.text.utf8.count)\r\n\r\n\(event.text)"))
    }
}
