#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import Logging
import Synchronization
import Testing

/// The output of a connection is bounded: a client that stops reading holds the host's answers back
/// (nothing dropped) and loses only the notifications the host pushes on its own, which it is told of.
/// Every test writes into a real pipe that nobody reads until the test says so.
@Suite("Bounded output", .timeLimit(.minutes(10)))
struct OutputBoundTests {
    /// A pipe: the sink writes into `write`, the test reads `read` when it chooses to.
    final class Pipe: Sendable {
        let read: Int32
        let write: Int32

        init() throws {
            signal(SIGPIPE, SIG_IGN)
            var fds: [Int32] = [0, 0]
            try #require(pipe(&fds) == 0)
            read = fds[0]
            write = fds[1]
        }

        deinit {
            close(read)
            close(write)
        }

        /// Fills the pipe with `{}` lines until it takes no more, as a client that stopped reading
        /// leaves it; returns how many lines it wrote.
        func fill() -> Int {
            let flags = fcntl(write, F_GETFL)
            _ = fcntl(write, F_SETFL, flags | O_NONBLOCK)
            defer { _ = fcntl(write, F_SETFL, flags) }
            let line: [UInt8] = Array("{}\n".utf8)
            var lines = 0
            while line.withUnsafeBytes({ Glibc.write(write, $0.baseAddress, $0.count) }) == line.count { lines += 1 }
            return lines
        }
    }

    /// Reads NDJSON lines from `fd` on a thread of its own until `done` is satisfied by the lines so far.
    static func readLines(from fd: Int32, until done: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try OSThread.detach(name: "test-reader") {
                    var lines: [String] = []
                    var partial: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 64 << 10)
                    while !done(lines) {
                        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                        if count <= 0 { break }
                        var start = 0
                        for index in 0..<count where chunk[index] == 0x0A {
                            partial += chunk[start..<index]
                            lines.append(String(decoding: partial, as: UTF8.self))
                            partial.removeAll(keepingCapacity: true)
                            start = index + 1
                        }
                        partial += chunk[start..<count]
                    }
                    continuation.resume(returning: lines)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Waits until `condition` holds, checking again after each short pause (no time limit of its own:
    /// the suite's time limit turns a hang into a failure).
    static func waitUntil(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(2)) }
    }

    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .sequentiallyConsistent) }
        func raise(to value: Int) { count.max(value, ordering: .sequentiallyConsistent) }
        var value: Int { count.load(ordering: .sequentiallyConsistent) }
    }

    static func line(_ index: Int, padding: Int) -> [UInt8] {
        Array(#"{"n":\#(index),"pad":"\#(String(repeating: "x", count: padding))"}"#.utf8) + [0x0A]
    }

    @Test("answers queued while nobody reads wait for room: the queue stays within its bound, then every answer arrives once")
    func answersWaitForRoom() async throws {
        let pipe = try Pipe()
        let filler = pipe.fill()
        let limit = 32 << 10
        let sink = try FileDescriptorSink(fd: pipe.write, limit: limit)
        let total = 60
        let queued = Counter()
        let answers = (0..<total).map { index in
            Task {
                await sink.enqueue(Self.line(index, padding: 8 << 10))
                queued.add()
            }
        }
        // Nobody reads: once the pipe and the queue are full, every answer is either queued or waiting.
        try await Self.waitUntil { queued.value + sink.waitingAnswerCount == total }
        #expect(sink.waitingAnswerCount >= total - 5, "a full pipe and a 32 KiB queue take at most 5 answers of 8 KiB")
        #expect(sink.queuedByteCount <= limit, "queued \(sink.queuedByteCount) bytes over a limit of \(limit)")

        let lines = try await Self.readLines(from: pipe.read) { $0.count >= filler + total }
        for answer in answers { await answer.value }
        let numbers = lines.compactMap { try? JSONValue(parsing: $0)["n"]?.int64Value }
        #expect(numbers.count == total)
        #expect(Set(numbers) == Set((0..<total).map(Int64.init)), "every answer arrives exactly once")
        #expect(sink.waitingAnswerCount == 0)
    }

    @Test("the input thread's own replies wait too, on the thread, and the queue stays within its bound")
    func inputThreadWaits() async throws {
        let pipe = try Pipe()
        let limit = 16 << 10
        let sink = try FileDescriptorSink(fd: pipe.write, limit: limit)
        let written = Counter()
        let total = 40
        try OSThread.detach(name: "test-input") {
            for index in 0..<total {
                sink.writeFromInput(Self.line(index, padding: 4 << 10))
                written.add()
            }
        }
        let mostQueued = Counter()
        let lines = try await Self.readLines(from: pipe.read) { lines in
            // Looked at before each read, while the writer is held up.
            mostQueued.raise(to: sink.queuedByteCount)
            return lines.count >= total
        }
        #expect(mostQueued.value <= limit)
        #expect(lines.count == total)
        #expect(written.value == total)
    }

    /// Writes `lines` numbered lines through ``FileDescriptorSink/writeFromInput(_:)`` on a thread of
    /// its own, as the input thread does; true once every call returned (a hang is the suite's time limit).
    static func writeFromInputThread(_ sink: FileDescriptorSink, lines: Int, padding: Int) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            do {
                try OSThread.detach(name: "test-input") {
                    for index in 0..<lines { sink.writeFromInput(Self.line(index, padding: padding)) }
                    continuation.resume(returning: true)
                }
            } catch {
                continuation.resume(returning: false)
            }
        }
    }

    @Test("the input thread's small replies into a pipe nobody reads are queued, not written into a full pipe: 2,000 of some 40 bytes all return")
    func smallRepliesDoNotBlock() async throws {
        let pipe = try Pipe()
        let sink = try FileDescriptorSink(fd: pipe.write)
        let total = 2_000
        // About 40 bytes each: Linux fills a page of the pipe with each hundred of them, so the pipe is full
        // with a few dozen bytes of its 64 KiB unused, when a count of its bytes still says there is room.
        #expect(await Self.writeFromInputThread(sink, lines: total, padding: 20))
        let lines = try await Self.readLines(from: pipe.read) { $0.count >= total }
        #expect(lines.count == total)
    }

    @Test("the input thread's replies into a socket nobody reads (libuv gives a child socketpairs) are queued, not written into a full socket: 4,000 of 300 bytes all return, in order")
    func socketRepliesDoNotBlock() async throws {
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { fds.forEach { close($0) } }
        let sink = try FileDescriptorSink(fd: fds[1])
        // 1.2 MB: several times what a Unix socket buffers, under the sink's 4 MiB bound.
        let total = 4_000
        #expect(await Self.writeFromInputThread(sink, lines: total, padding: 280))
        let lines = try await Self.readLines(from: fds[0]) { $0.count >= total }
        #expect(lines.count == total)
        #expect(lines.enumerated().allSatisfy { $0.element.hasPrefix(#"{"n":\#($0.offset),"#) })
    }

    @Test("pushes beyond the bound are dropped; once there is room the peer gets one notice with the right count, before later pushes")
    func pushesDroppedWithNotice() async throws {
        let pipe = try Pipe()
        let limit = 16 << 10
        let sink = try FileDescriptorSink(fd: pipe.write, limit: limit)
        let connection = Connection(dispatcher: try MethodRegistry().freeze(), limits: ConnectionLimits(maxOutputBytes: limit),
                                    framing: .ndjson, sink: sink, logger: Logger(label: "test"))
        let filler = pipe.fill()
        let total = 400
        let padding = String(repeating: "p", count: 1000)
        for index in 0..<total {
            connection.notify(method: "test/push", params: ["n": .integer(Int64(index)), "pad": .string(padding)])
        }
        // 400 KB pushed at a full pipe nobody reads: the queue holds no more than its bound.
        #expect(sink.queuedByteCount <= limit)
        #expect(sink.queuedByteCount > limit / 2)

        let lines = try await Self.readLines(from: pipe.read) { lines in
            lines.last.map { $0.contains("notificationsDropped") } ?? false
        }
        #expect(lines.prefix(filler).allSatisfy { $0 == "{}" })
        let messages = lines.dropFirst(filler).compactMap { try? JSONValue(parsing: $0) }
        let pushed = messages.filter { $0["method"] == "test/push" }.compactMap { $0["params"]?["n"]?.int64Value }
        let notice = try #require(messages.last)
        #expect(notice["method"] == "$/notificationsDropped")
        let dropped = try #require(notice["params"]?["count"]?.int64Value)
        #expect(dropped > 0)
        #expect(Int64(pushed.count) + dropped == Int64(total), "each push arrives or is counted as dropped")
        #expect(pushed == (0..<Int64(pushed.count)).map { $0 }, "the pushes that fit arrive in order, the rest are dropped")
        #expect(notice["params"]?["methods"] == ["test/push": .integer(dropped)])
        #expect(messages.filter { $0["method"] == "$/notificationsDropped" }.count == 1)

        // There is room now: the next push goes out, after the notice.
        connection.notify(method: "test/push", params: ["n": "after"])
        let after = try await Self.readLines(from: pipe.read) { !$0.isEmpty }
        #expect(after.first.map { (try? JSONValue(parsing: $0))?["params"]?["n"] == "after" } == true)
    }

    @Test("a peer whose dialect has no drop notice (MCP) is not sent $/notificationsDropped: the count is logged, and later pushes go out")
    func droppedNoticeFollowsDialect() async throws {
        let pipe = try Pipe()
        let limit = 16 << 10
        let sink = try FileDescriptorSink(fd: pipe.write, limit: limit)
        let log = LogLines()
        let connection = Connection(dispatcher: try MethodRegistry().freeze(), limits: ConnectionLimits(maxOutputBytes: limit),
                                    framing: .ndjson, sink: sink, logger: Logger(label: "test") { _ in log })
        connection.speak(NotificationDialect(passesOwnNotifications: false) { method, params in
            method == "test/push" ? ("notifications/push", params) : (method, params)
        })
        let filler = pipe.fill()
        let padding = String(repeating: "p", count: 1000)
        for index in 0..<400 {
            connection.notify(method: "test/push", params: ["n": .integer(Int64(index)), "pad": .string(padding)])
        }
        let noticeSent = Atomic<Bool>(false)
        let reader = Task {
            try await Self.readLines(from: pipe.read) { lines in
                if lines.contains(where: { $0.contains("notificationsDropped") }) { noticeSent.store(true, ordering: .relaxed) }
                return lines.last?.contains("after") == true
            }
        }
        // Once the output has room again the count is logged (or, wrongly, sent), and the next push goes out.
        try await Self.waitUntil { log.contains("pushed notifications were dropped") || noticeSent.load(ordering: .relaxed) }
        connection.notify(method: "test/push", params: ["n": "after"])
        let messages = try await reader.value.dropFirst(filler).compactMap { try? JSONValue(parsing: $0) }
        #expect(messages.count > 1 && messages.count < 401, "some pushes went out, some were dropped")
        #expect(messages.allSatisfy { $0["method"] == "notifications/push" }, "no $/notificationsDropped, which the dialect does not word")
        #expect(messages.last?["params"]?["n"] == "after")
    }

    /// Log messages at every level, for tests that wait on a line.
    final class LogLines: LogHandler, @unchecked Sendable {
        private let lines = Mutex<[String]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.withLock { $0.append(event.message.description) }
        }

        func contains(_ text: String) -> Bool { lines.withLock { $0.contains { $0.contains(text) } } }
    }

    @Test("answers are never dropped while pushes are: a full output refuses pushes but queues answers once there is room")
    func answersAreNotDropped() async throws {
        let pipe = try Pipe()
        let limit = 8 << 10
        let sink = try FileDescriptorSink(fd: pipe.write, limit: limit)
        // Fill the pipe, then the queue with pushes nobody reads.
        let filler = pipe.fill()
        var offered = 0
        while sink.offer(Self.line(offered, padding: 1 << 10)) { offered += 1 }
        #expect(sink.offer(Self.line(-1, padding: 1 << 10)) == false, "a full output refuses pushes")
        let answer = Task { await sink.enqueue(Self.line(1_000_000, padding: 1 << 10)) }
        try await Self.waitUntil { sink.waitingAnswerCount == 1 }
        let lines = try await Self.readLines(from: pipe.read) { $0.last?.contains("1000000") == true }
        await answer.value
        #expect(lines.count == filler + offered + 1, "every accepted push and the answer arrive, nothing else")
    }
}
