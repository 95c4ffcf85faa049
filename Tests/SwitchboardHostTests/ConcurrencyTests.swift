import Jansson
import JSONRPC
import Synchronization
import Testing

// Concurrency (issue point 6): each request its own task, replies out of order, in-flight work
// bounded with backpressure and nothing dropped. That frames never interleave is shown on a real
// pipe, through `FileDescriptorSink`, in PipeInterleavingTests.

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("a slow request does not hold up fast ones: their replies come out first")
    func slowDoesNotBlockFast() async throws {
        let host = try Harness()
        try await host.send(json: request("test.block", params: ["key": "slow"], id: 1))
        try await host.probe.waitFor("start:slow")
        try await host.send(json: request("test.fast", id: 2))
        try await host.send(json: request("host.ping", id: 3))
        try await host.send(json: request("host.sleep", params: ["ms": 1, "steps": 1], id: 4))
        expectResult(try await host.reply(to: 2), id: 2, "fast")
        expectResult(try await host.reply(to: 3), id: 3, "pong")
        expectResult(try await host.reply(to: 4), id: 4, ["slept": 1, "steps": 1])
        #expect(!host.frames.elements.contains { $0.id == 1 })
        host.probe.open("slow")
        expectResult(try await host.reply(to: 1), id: 1, "slow")
        #expect(host.writtenFrames.last?.id == 1, "the slow reply is the last one out")
    }

    @Test("a slow host.sleep does not hold up host.ping")
    func slowSleep() async throws {
        let host = try Harness()
        try await host.send(json: request("host.sleep", params: ["ms": 60_000, "steps": 600], id: "slow"))
        expectResult(try await host.call("host.ping", id: "fast"), id: "fast", "pong")
        #expect(!host.frames.elements.contains { $0.id == "slow" })
        try await host.notify("$/cancelRequest", params: ["id": "slow"])
        expectError(try await host.reply(to: "slow"), id: "slow", code: -32800)
    }

    @Test("requests run concurrently: two blocked requests both start before either finishes")
    func concurrentStarts() async throws {
        let host = try Harness()
        try await host.send(raw: request("test.block", params: ["key": "a"], id: 1).jsonText() + "\n"
                            + request("test.block", params: ["key": "b"], id: 2).jsonText() + "\n")
        try await host.probe.waitFor("start:a")
        try await host.probe.waitFor("start:b")
        host.probe.open("b")
        expectResult(try await host.reply(to: 2), id: 2, "b")
        host.probe.open("a")
        expectResult(try await host.reply(to: 1), id: 1, "a")
        let ids = host.writtenFrames.map(\.id)
        #expect(ids == [2, 1], "replies come out in the order requests finish")
    }

    @Test("with maxInFlight 2 and two blocked requests, a third does not start until one finishes")
    func inFlightBound() async throws {
        let host = try Harness(limits: ConnectionLimits(maxInFlight: 2))
        try await host.send(raw: ["a", "b", "c"].enumerated().map { index, key in
            request("test.block", params: ["key": .string(key)], id: .integer(Int64(index + 1))).jsonText() + "\n"
        }.joined())
        try await host.probe.waitFor("start:a")
        try await host.probe.waitFor("start:b")
        // The input thread is still reading (one request waits in the queue, which has room).
        expectResult(try await host.call("host.ping", id: "ping"), id: "ping", "pong")
        let status = try await host.call("host.status", id: "status")
        #expect(status.result?["inFlight"] == 3, "two running and one waiting: \(status.text)")
        #expect(!host.probe.events.elements.contains("start:c"), "c must wait for a slot")
        host.probe.open("a")
        try await host.probe.waitFor("start:c")
        let events = host.probe.events.elements
        let endA = try #require(events.firstIndex(of: "end:a"))
        let startC = try #require(events.firstIndex(of: "start:c"))
        #expect(endA < startC, "c started only after a finished: \(events)")
        host.probe.open("b")
        host.probe.open("c")
        expectResult(try await host.reply(to: 1), id: 1, "a")
        expectResult(try await host.reply(to: 2), id: 2, "b")
        expectResult(try await host.reply(to: 3), id: 3, "c")
        try await host.waitUntilIdle()
        #expect(host.probe.mostRunningAtOnce == 2)
    }

    @Test("past the bound and its queue the host stops reading (backpressure) and drops nothing")
    func backpressure() async throws {
        let host = try Harness(limits: ConnectionLimits(maxInFlight: 1))
        let keys = (1...5).map { "k\($0)" }
        let input = keys.enumerated().map { index, key in
            request("test.block", params: ["key": .string(key)], id: .integer(Int64(index + 1))).jsonText() + "\n"
        }.joined()
        let fed = host.post(Array(input.utf8))
        let pinged = host.post(Array((request("host.ping", id: "ping").jsonText() + "\n").utf8))
        try await host.probe.waitFor("start:k1")
        #expect(!fed.isOpen, "with one running and one queued, the third request holds up the input thread")
        #expect(!host.frames.elements.contains { $0.id == "ping" }, "the ping behind it is not read yet")
        for key in keys {
            try await host.probe.waitFor("start:\(key)")
            #expect(host.probe.mostRunningAtOnce == 1)
            host.probe.open(key)
        }
        try await fed.opened("the input thread to take all five requests")
        try await pinged.opened("the input thread to take the ping")
        let pong = try await host.reply(to: "ping")
        expectResult(pong, id: "ping", "pong")
        for index in 1...5 { expectResult(try await host.reply(to: .integer(Int64(index))), id: .integer(Int64(index)), .string("k\(index)")) }
        try await host.waitUntilIdle()
        let frames = host.writtenFrames
        #expect(frames.count == 6, "every request answered exactly once")
        let pingIndex = try #require(frames.firstIndex { $0.id == "ping" })
        let thirdIndex = try #require(frames.firstIndex { $0.id == 3 })
        #expect(thirdIndex < pingIndex, "the ping was read only once request 5 found a place in the queue")
        #expect(host.probe.mostRunningAtOnce == 1)
    }

    @Test("host.status counts requests in flight")
    func statusCountsInFlight() async throws {
        let host = try Harness()
        try await host.send(json: request("test.block", params: ["key": "s"], id: 1))
        try await host.probe.waitFor("start:s")
        let status = try await host.call("host.status", id: 2)
        #expect(status.result?["inFlight"] == 1 && status.result?["framing"] == "ndjson" && status.result?["shuttingDown"] == false)
        host.probe.open("s")
        _ = try await host.reply(to: 1)
        try await host.waitUntilIdle()
        #expect(try await host.call("host.status", id: 3).result?["inFlight"] == 0)
    }
}
