#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import SwitchboardHost
import Synchronization
import Testing

// Frames never interleave on a real descriptor: `FileDescriptorSink` writing into a pipe, fed at the
// same time by the input thread (`writeFromInput`) and by many tasks (`enqueue`), with frames larger
// than the pipe's buffer so every write is partial. What comes out of the pipe is split frame by
// frame, in both framings, and each frame must be whole and carry exactly what its sender put in.

/// The read end of a pipe drained to EOF by a thread of its own, so writers never block on a full pipe.
private final class PipeDrain: Sendable {
    let writeFD: Int32
    private let readFD: Int32
    private let bytes = Mutex<[UInt8]>([])
    private let done = Latch()

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BinaryHarness.Failure("pipe failed: errno \(errno)") }
        readFD = fds[0]
        writeFD = fds[1]
        try OSThread.detach(name: "test-pipe-drain") { [self] in
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                bytes.withLock { $0 += chunk[..<count] }
            }
            close(readFD)
            done.open()
        }
    }

    /// Closes the write end and waits until the reader has seen EOF; returns everything that came through.
    func finish() async throws -> [UInt8] {
        close(writeFD)
        try await done.opened("the pipe to reach EOF")
        return bytes.withLock { $0 }
    }
}

/// A payload only its sender could have written: `size` bytes cycling through letters chosen by `seed`.
private func payload(seed: Int, size: Int) -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    return String(decoding: (0..<size).map { letters[($0 + seed * 7) % letters.count] }, as: UTF8.self)
}

/// The body of frame `index` from `sender` (0: the input thread): {"s": sender, "k": index, "p": payload}.
private func senderBody(sender: Int, index: Int) -> String {
    JSONValue.object([
        "s": .integer(Int64(sender)), "k": .integer(Int64(index)),
        "p": .string(payload(seed: sender * 1_000 + index, size: 20_000 + (sender * 3_001 + index * 977) % 90_000)),
    ]).jsonText()
}

/// That body framed.
private func senderFrame(_ framing: Framing, sender: Int, index: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    Array(senderBody(sender: sender, index: index).utf8).withUnsafeBytes { framing.appendFrame(body: $0, to: &bytes) }
    return bytes
}

/// `test.big {"n": N, "size": S}`: a task-run method answering a large string made from N.
private enum TestBig: RPCMethod {
    static let name = "test.big"
    static let summary = "Test only: answers a large payload from a task."
    struct Params: Decodable, Sendable {
        var n: Int
        var size: Int
    }
    typealias Result = String
}

@Suite("Frames never interleave on a real pipe")
struct PipeInterleavingTests {
    @Test("the sink alone: the input thread and 16 tasks write large frames at once; each comes out whole, in each sender's order",
          arguments: Framing.allCases)
    func sinkWritesWholeFrames(framing: Framing) async throws {
        let drain = try PipeDrain()
        let sink = try FileDescriptorSink(fd: drain.writeFD)
        let senders = 16
        let framesPerSender = 8
        let inputDone = Latch()
        try OSThread.detach(name: "test-input") {
            for index in 0..<framesPerSender { sink.writeFromInput(senderFrame(framing, sender: 0, index: index)) }
            inputDone.open()
        }
        await withTaskGroup(of: Void.self) { group in
            for sender in 1...senders {
                group.addTask {
                    for index in 0..<framesPerSender {
                        await sink.enqueue(senderFrame(framing, sender: sender, index: index))
                        await Task.yield()
                    }
                }
            }
        }
        try await inputDone.opened("the input thread's writes")
        #expect(sink.flush(deadline: monotonicNanoseconds() + 60_000_000_000), "the sink flushed")
        let frames = OutputSplitter.frames(in: try await drain.finish())

        #expect(frames.count == (senders + 1) * framesPerSender)
        var next = [Int](repeating: 0, count: senders + 1)
        for frame in frames {
            guard let value = frame.value, let sender = value["s"]?.int64Value.map(Int.init),
                  let index = value["k"]?.int64Value.map(Int.init), (0...senders).contains(sender) else {
                Issue.record("a broken frame came out of the pipe: \(frame.text.prefix(200))")
                continue
            }
            #expect(index == next[sender], "sender \(sender)'s frames keep their order")
            next[sender] = index + 1
            #expect(frame.text == senderBody(sender: sender, index: index), "frame \(sender)/\(index) is intact")
        }
    }

    @Test("a connection on the sink: large immediate replies, large task replies and notifications from tasks never interleave",
          arguments: Framing.allCases)
    func connectionWritesWholeFrames(framing: Framing) async throws {
        var registry = MethodRegistry.hostMethods()
        registry.register(TestBig.self) { params, _ in payload(seed: params.n, size: params.size) }
        let drain = try PipeDrain()
        let sink = try FileDescriptorSink(fd: drain.writeFD)
        let connection = Connection(dispatcher: try registry.freeze(), framing: framing, sink: sink, logger: quietLogger)
        let reader = MessageReader(connection: connection)

        let requests = 120
        let notifications = 96
        let size: @Sendable (Int) -> Int = { n in 70_000 + (n * 7_919) % 60_000 }
        var bytes: [UInt8] = []
        for n in 0..<requests {
            // Even ids: host.echo, answered on the input thread; odd ids: test.big, answered from a task.
            let message: JSONValue = n.isMultiple(of: 2)
                ? request("host.echo", params: ["n": .integer(Int64(n)), "p": .string(payload(seed: n, size: size(n)))], id: .integer(Int64(n)))
                : request("test.big", params: ["n": .integer(Int64(n)), "size": .integer(Int64(size(n)))], id: .integer(Int64(n)))
            let body = Array(message.jsonText().utf8)
            body.withUnsafeBytes { framing.appendFrame(body: $0, to: &bytes) }
        }
        let input = bytes
        let fed = Latch()
        let box = UncheckedBox(reader)
        try OSThread.detach(name: "test-input") {
            input.withUnsafeBytes { buffer in
                var start = 0
                while start < buffer.count {
                    let end = min(buffer.count, start + 16_384)
                    box.value.receive(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                    start = end
                }
            }
            fed.open()
        }
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask {
                    for k in 0..<(notifications / 8) {
                        let n = sender * 1_000 + k
                        connection.notify(method: "test/event", params: ["s": .integer(Int64(sender)), "k": .integer(Int64(k)),
                                                                         "p": .string(payload(seed: n, size: 30_000))])
                        await Task.yield()
                    }
                }
            }
        }
        try await fed.opened("the input thread to take every request")
        let idle = Latch()
        try OSThread.detach(name: "test-idle") {
            _ = connection.waitUntilIdle(deadline: monotonicNanoseconds() + 60_000_000_000)
            _ = connection.flush(deadline: monotonicNanoseconds() + 60_000_000_000)
            idle.open()
        }
        try await idle.opened("the connection to finish and flush")
        let frames = OutputSplitter.frames(in: try await drain.finish())
        withExtendedLifetime(reader) {}

        #expect(frames.count == requests + notifications)
        var answered = Set<Int64>()
        var nextEvent = [Int](repeating: 0, count: 8)
        for frame in frames {
            guard let value = frame.value else {
                Issue.record("a broken frame came out of the pipe: \(frame.text.prefix(200))")
                continue
            }
            if frame.method == "test/event" {
                let sender = Int(value["params"]?["s"]?.int64Value ?? -1)
                let k = Int(value["params"]?["k"]?.int64Value ?? -1)
                guard (0..<8).contains(sender) else { Issue.record("bad event \(frame.text.prefix(200))"); continue }
                #expect(k == nextEvent[sender], "one sender's notifications keep their order")
                nextEvent[sender] = k + 1
                #expect(value["params"]?["p"]?.stringValue == payload(seed: sender * 1_000 + k, size: 30_000))
                continue
            }
            guard let id = frame.id?.int64Value else { Issue.record("unexpected frame \(frame.text.prefix(200))"); continue }
            answered.insert(id)
            let n = Int(id)
            let expected: JSONValue = n.isMultiple(of: 2)
                ? ["n": .integer(id), "p": .string(payload(seed: n, size: size(n)))]
                : .string(payload(seed: n, size: size(n)))
            #expect(frame.result == expected, "the answer to \(id) is intact")
        }
        #expect(answered == Set((0..<requests).map(Int64.init)), "every request answered")
    }
}

/// Hands a non-Sendable value to one other thread.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
