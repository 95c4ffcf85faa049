import Jansson
import Testing

/// Open `subscriptions/listen` streams hold no slot of `--max-in-flight`: however many are open, the
/// host reads on, answers pings and runs other requests; a stream still ends by its cancel or at end
/// of input, and one connection keeps at most 256 open.
@Suite("Streams and admission (binary)", .offCooperativePool)
struct StreamAdmissionBinaryTests {
    typealias H = BinaryHarness

    static func listen(_ id: String, _ uris: String = #"["feed://items"]"#) -> String {
        #"{"jsonrpc":"2.0","id":"\#(id)","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":\#(uris)}}}"#
    }

    @Test("With --max-in-flight 2, five open streams leave the host answering a ping and then a task-run request")
    func streamsDoNotHoldSlots() throws {
        let host = try SpawnedHost(arguments: MCPServerBinaryTests.memory + ["--max-in-flight", "2"])
        let streams = (1...5).map { "s\($0)" }
        try host.send(streams.map { Self.listen($0) } + [H.request(6, "host.ping"), H.request(7, "host.sleep", #"{"ms":0,"steps":1}"#)])
        let (pong, beforePong) = try host.response(to: 6)
        #expect(pong["result"] == "pong")
        let (slept, beforeSleep) = try host.response(to: 7)
        #expect(slept["result"] == ["slept": 0, "steps": 1], "\(slept)")
        var acknowledged = (beforePong + beforeSleep).filter { $0["method"] == "notifications/subscriptions/acknowledged" }.count
        while acknowledged < streams.count {
            if try host.nextMessage()["method"] == "notifications/subscriptions/acknowledged" { acknowledged += 1 }
        }
        // Each stream still ends by its cancel, the others at end of input.
        try host.send(H.notification("$/cancelRequest", #"{"id":"s3"}"#))
        #expect(H.errorCode(try host.response(to: "s3").response) == -32800)
        host.closeInput()
        var ended: [String: JSONValue] = [:]
        while ended.count < streams.count - 1 {
            let message = try host.nextMessage()
            if let id = message["id"]?.stringValue { ended[id] = message["result"] }
        }
        #expect(ended == Dictionary(uniqueKeysWithValues: streams.filter { $0 != "s3" }.map { ($0, ["resultType": "complete"]) }))
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("A connection keeps at most 256 streams open: the next is -32600 naming the limit, and the host reads on")
    func streamsAreBounded() throws {
        let host = try SpawnedHost(arguments: MCPServerBinaryTests.memory + ["--max-in-flight", "2"])
        try host.send((1...257).map { Self.listen("s\($0)", "[]") } + [H.request(1, "host.ping")])
        let (pong, before) = try host.response(to: 1)
        #expect(pong["result"] == "pong")
        // The stream that finds 256 open is refused: the last to open, not always the last sent (tasks
        // start in any order).
        var seen = before
        while !seen.contains(where: { $0["error"] != nil }) { seen.append(try host.nextMessage()) }
        let refused = seen.filter { $0["error"] != nil }
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first.map(H.errorCode) == -32600, "\(refused)")
        #expect(refused.first?["error"]?["data"]?["limit"] == 256, "\(refused)")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
