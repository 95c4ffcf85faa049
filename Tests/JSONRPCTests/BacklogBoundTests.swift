import Jansson
import JSONRPC
import Testing

/// `FileDescriptorSink.writeUnlessBacklogged`, what a plugin's stdin uses: never waits, queues past the
/// sink's limit, refuses once more than the backlog bound waits, and keeps the frames it took in order.
/// Written into a real pipe that nobody reads until the test says so.
@Suite("Backlog bound of an output that must not wait", .timeLimit(.minutes(10)))
struct BacklogBoundTests {
    typealias Pipe = OutputBoundTests.Pipe

    @Test("frames to a full pipe are taken without waiting until the backlog passes the bound, then refused; those taken arrive in order")
    func refusesPastTheBacklog() async throws {
        let pipe = try Pipe()
        let filler = pipe.fill()
        let backlog = 8 << 10
        let sink = try FileDescriptorSink(fd: pipe.write, limit: 1 << 10)
        // 1 KiB frames: the limit is passed at once (no wait), the backlog after about eight more.
        var taken = 0
        while taken < 100, sink.writeUnlessBacklogged(OutputBoundTests.line(taken, padding: 1000), over: backlog) { taken += 1 }
        #expect(taken > 1 && taken < 100, "took \(taken) frames")
        #expect(sink.queuedByteCount > backlog, "refused only past the bound: \(sink.queuedByteCount) bytes wait")
        #expect(sink.queuedByteCount <= backlog + 1100, "one frame past the bound at most: \(sink.queuedByteCount) bytes wait")

        let expected = filler + taken
        let lines = try await OutputBoundTests.readLines(from: pipe.read) { $0.count >= expected }
        let numbers = lines.dropFirst(filler).compactMap { try? JSONValue(parsing: $0)["n"]?.int64Value }
        #expect(numbers == (0..<taken).map(Int64.init), "every frame taken, once, in order")
        #expect(sink.writeUnlessBacklogged(OutputBoundTests.line(taken, padding: 10), over: backlog), "room again once read")
    }
}
