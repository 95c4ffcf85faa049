import Jansson
import JSONRPC
import Testing

// JSON-RPC 2.0 batches, in process (issue points 4 and 6): one array of answers, in element order,
// as one frame; no output at all when nothing in the batch is answered.

@Suite("JSON-RPC 2.0: batches")
struct BatchTests {
    @Test("rpc call batch with invalid JSON: a single -32700 object with id null, not an array")
    func invalidJSONBatch() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]"#)
        let reply = try await host.frame(0)
        #expect(!reply.isBatch)
        expectError(reply, id: nil, code: -32700)
    }

    @Test("an empty array: a single -32600 object with id null, not an array")
    func emptyBatch() async throws {
        let host = try Harness()
        try await host.send("[]")
        let reply = try await host.frame(0)
        #expect(!reply.isBatch)
        expectError(reply, id: nil, code: -32600)
    }

    @Test("an invalid batch of one: an array of one -32600 with id null")
    func batchOfOne() async throws {
        let host = try Harness()
        try await host.send("[1]")
        let reply = try await host.frame(0)
        let answers = try #require(reply.json.arrayValue)
        #expect(answers.count == 1)
        for answer in answers { expectErrorValue(answer, id: nil, code: -32600) }
    }

    @Test("an invalid batch of three: an array of three -32600 with id null")
    func batchOfThree() async throws {
        let host = try Harness()
        try await host.send("[1,2,3]")
        let reply = try await host.frame(0)
        let answers = try #require(reply.json.arrayValue)
        #expect(answers.count == 3)
        for answer in answers { expectErrorValue(answer, id: nil, code: -32600) }
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 1)
    }

    @Test("the specification's mixed batch: answers in element order, notifications left out")
    func mixedBatch() async throws {
        let host = try Harness()
        try await host.send(#"""
        [{"jsonrpc": "2.0", "method": "host.echo", "params": [1,2,4], "id": "1"}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}, {"jsonrpc": "2.0", "method": "host.echo", "params": [42,23], "id": "2"}, {"foo": "boo"}, {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"}, {"jsonrpc": "2.0", "method": "host.ping", "id": "9"}]
        """#)
        let reply = try await host.frame(0)
        let answers = try #require(reply.json.arrayValue)
        try #require(answers.count == 5)
        expectEnvelope(answers[0])
        #expect(answers[0] == ["jsonrpc": "2.0", "id": "1", "result": [1, 2, 4]])
        #expect(answers[1] == ["jsonrpc": "2.0", "id": "2", "result": [42, 23]])
        expectErrorValue(answers[2], id: nil, code: -32600)
        let notFound = expectErrorValue(answers[3], id: "5", code: -32601)
        #expect(notFound["data"] == ["method": "foo.get"])
        #expect(answers[4] == ["jsonrpc": "2.0", "id": "9", "result": "pong"])
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 1)
    }

    @Test("an all-notification batch produces no output at all")
    func allNotifications() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}, {"jsonrpc":"2.0","method":"test.note","params":{"text":"in batch"}}, {"jsonrpc":"2.0","method":"test.fast"}, {"jsonrpc":"2.0","method":"host.sleep","params":{"ms":"ten"}}]"#)
        try await host.waitUntilIdle()
        #expect(host.sink.bytes.isEmpty, "nothing written: \(host.outputText)")
        let pong = try await host.call("host.ping", id: 1)
        #expect(host.writtenFrames.map(\.text) == [pong.text])
        #expect(host.probe.count(of: "note:in batch") == 1)
    }

    @Test("a batch of responses from the client produces no output")
    func responsesOnly() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}]"#)
        let pong = try await host.call("host.ping", id: 3)
        #expect(host.writtenFrames.map(\.text) == [pong.text])
    }

    @Test("a nested batch is not a request: -32600 for that element")
    func nestedBatch() async throws {
        let host = try Harness()
        try await host.send(#"[[{"jsonrpc":"2.0","method":"host.ping","id":1}],{"jsonrpc":"2.0","method":"host.ping","id":2}]"#)
        let answers = try #require(try await host.frame(0).json.arrayValue)
        try #require(answers.count == 2)
        expectErrorValue(answers[0], id: nil, code: -32600)
        #expect(answers[1] == ["jsonrpc": "2.0", "id": 2, "result": "pong"])
    }

    @Test("errors inside a batch carry their element's id and data")
    func errorsInBatch() async throws {
        let host = try Harness()
        try await host.send(#"[{"jsonrpc":"2.0","method":"nope","id":"x"},{"jsonrpc":"2.0","method":"host.sleep","params":{"ms":"ten"},"id":"y"},{"jsonrpc":"2.0","method":"host.echo","params":"bar","id":"z"},{"jsonrpc":"2.0","method":"test.boom","id":"w"}]"#)
        let answers = try #require(try await host.frame(0).json.arrayValue)
        try #require(answers.count == 4)
        #expect(expectErrorValue(answers[0], id: "x", code: -32601)["data"] == ["method": "nope"])
        #expect(expectErrorValue(answers[1], id: "y", code: -32602)["data"]?["field"] == "ms")
        expectErrorValue(answers[2], id: "z", code: -32600)
        expectErrorValue(answers[3], id: "w", code: -32603)
    }

    @Test("task-run elements finishing in any order still come out as one array, in element order")
    func outOfOrderCompletion() async throws {
        let host = try Harness()
        try await host.send(#"""
        [{"jsonrpc":"2.0","method":"test.block","params":{"key":"A"},"id":1}, {"jsonrpc":"2.0","method":"test.fast","id":2}, {"jsonrpc":"2.0","method":"host.ping","id":3}, {"jsonrpc":"2.0","method":"test.block","params":{"key":"B"},"id":4}, {"jsonrpc":"2.0","method":"test.note","params":{"text":"n"}}, {"jsonrpc":"2.0","method":"no.such","id":5}, 7, {"jsonrpc":"2.0","method":"host.sleep","params":{"ms":1,"steps":1},"id":6}]
        """#)
        try await host.probe.waitFor("start:A")
        try await host.probe.waitFor("start:B")
        host.probe.open("B")
        try await host.probe.waitFor("end:B")
        #expect(host.frames.elements.isEmpty, "nothing goes out while an element of the batch runs")
        host.probe.open("A")
        let reply = try await host.frame(0)
        let answers = try #require(reply.json.arrayValue)
        #expect(answers.map { $0["id"] } == [1, 2, 3, 4, 5, .null, 6])
        #expect(answers[0]["result"] == "A")
        #expect(answers[1]["result"] == "fast")
        #expect(answers[2]["result"] == "pong")
        #expect(answers[3]["result"] == "B")
        #expect(answers[6]["result"] == ["slept": 1, "steps": 1])
        for answer in answers { expectEnvelope(answer) }
        try await host.waitUntilIdle()
        #expect(host.writtenFrames.count == 1, "the batch's answers are one frame: \(host.outputText)")
        #expect(host.sink.writeCount == 1, "and one write")
    }

    @Test("many concurrent batches each come out whole", arguments: [1, 7])
    func manyBatches(chunkSize: Int) async throws {
        let host = try Harness()
        var input = ""
        for batch in 0..<20 {
            let elements = (0..<5).map { element in
                element % 2 == 0
                    ? #"{"jsonrpc":"2.0","method":"test.fast","id":"\#(batch)-\#(element)"}"#
                    : #"{"jsonrpc":"2.0","method":"host.ping","id":"\#(batch)-\#(element)"}"#
            }
            input += "[" + elements.joined(separator: ",") + "]\n"
        }
        try await host.send(raw: input, chunkSize: chunkSize)
        _ = try await host.frames.wait(for: "20 batch answers") { $0.count >= 20 ? true : nil }
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        #expect(frames.count == 20)
        for frame in frames {
            let answers = try #require(frame.json.arrayValue, "not a batch answer: \(frame.text)")
            let ids = answers.compactMap { $0["id"]?.stringValue }
            let batch = try #require(ids.first?.split(separator: "-").first)
            #expect(ids == (0..<5).map { "\(batch)-\($0)" })
        }
    }
}
