#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Synchronization
import Testing

/// The output bound against the built binary, over real pipes.
@Suite("Bounded output, against the binary", .offCooperativePool)
struct BinaryOutputBoundTests {
    typealias H = BinaryHarness

    @Test("--max-output-bytes is advertised by initialize and validated")
    func advertised() throws {
        let host = try SpawnedHost(arguments: ["--max-output-bytes", "5000"])
        try host.send(H.request(1, "initialize"))
        let reply = try host.nextMessage()
        #expect(reply["result"]?["capabilities"]?["limits"]?["maxOutputBytes"] == 5000)
        #expect(reply["result"]?["capabilities"]?["notificationsDropped"] == "$/notificationsDropped")
        let refused = try H.run(["serve", "--max-output-bytes", "0"])
        #expect(refused.termination != .exited(0))
        #expect(refused.stderr.contains("--max-output-bytes"))
    }

    @Test("with a bound far below one answer, pipelined task answers of 128 KB each all arrive, whole and once",
          arguments: [H.Wire.ndjson, .lsp])
    func answersAllArrive(wire: H.Wire) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory", "--max-output-bytes", "1024", "--max-in-flight", "2"], wire: wire)
        let total = 24
        try host.send((1...total).map { H.request($0, "feed.list", #"{"limit":500}"#) })
        var seen: [Int64] = []
        for _ in 1...total {
            let reply = try host.nextMessage(within: 30_000)
            #expect(reply["result"]?["items"]?.arrayValue?.count == 500)
            if let id = reply["id"]?.int64Value { seen.append(id) }
        }
        #expect(seen.sorted() == (1...Int64(total)).map { $0 })
        host.closeInput()
        #expect(try host.readToEndOfOutput(within: 30_000).isEmpty)
        #expect(try host.waitForExit() == .exited(0))
    }
}

/// Pushes against the binary while its stdout pipe is full and nobody reads it.
@Suite("Dropped pushes, against the binary", .offCooperativePool)
struct BinaryDroppedPushTests {
    typealias H = BinaryHarness

    /// A host on raw pipes: the test decides when, and whether, stdout is read.
    final class RawHost {
        let pid: pid_t
        private(set) var input: Int32
        let output: Int32
        let errors: Int32

        /// With `sockets`, stdin and stdout are socketpairs, as libuv (Node, VS Code) gives a child.
        init(_ arguments: [String], sockets: Bool = false) throws {
            _ = H.ignoreSIGPIPE
            (pid, input, output, errors) = try H.spawnLock.withLock { _ in
                let input = try sockets ? H.makeSocketPair() : H.makePipe()
                let output = try sockets ? H.makeSocketPair() : H.makePipe()
                let errors = try H.makePipe()
                defer {
                    close(input.read)
                    close(output.write)
                    close(errors.write)
                }
                let pid = try H.spawn(path: H.binaryPath, arguments: arguments, environment: [:], stdin: input.read,
                                      stdout: output.write, stderr: errors.write, newProcessGroup: false)
                return (pid, input.write, output.read, errors.read)
            }
        }

        private var termination: H.Termination?

        deinit {
            if termination == nil {
                kill(pid, SIGKILL)
                H.reap(pid, within: 5_000)
            }
            for fd in [input, output, errors] where fd >= 0 { close(fd) }
        }

        /// Waits for the host to end and reaps it (once: the pid is not signalled after that).
        func reap(within milliseconds: Int) -> H.Termination? {
            if termination == nil { termination = H.reap(pid, within: milliseconds) }
            return termination
        }

        /// Ends the host's input (once: the descriptor's number may be another's afterwards).
        func closeInput() {
            guard input >= 0 else { return }
            close(input)
            input = -1
        }

        func send(_ json: String) {
            let bytes = H.frame(json, .ndjson)
            _ = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        }

        /// Bytes written to stdout that nobody has read yet.
        var unreadOutput: Int32 {
            var count: Int32 = 0
            _ = withUnsafeMutablePointer(to: &count) { ioctl(output, UInt(FIONREAD), $0) }
            return count
        }

        /// How much the stdout pipe holds (F_GETPIPE_SZ).
        var outputCapacity: Int32 { fcntl(output, 1032) }

        /// Reads `fd` until `done` holds for everything read so far, or the deadline passes.
        func read(_ fd: Int32, within milliseconds: Int = 20_000, until done: ([UInt8]) -> Bool) throws -> [UInt8] {
            let deadline = H.nowMilliseconds() + milliseconds
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while !done(bytes) {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let remaining = deadline - H.nowMilliseconds()
                guard remaining > 0, poll(&poller, 1, Int32(remaining)) > 0 else {
                    throw H.Failure("timed out reading; so far: \(String(decoding: bytes.suffix(300), as: UTF8.self))")
                }
                let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { throw H.Failure("end of output; so far: \(String(decoding: bytes.suffix(300), as: UTF8.self))") }
                bytes += chunk[..<count]
            }
            return bytes
        }
    }

    @Test("a client that writes 3,000 requests (12,000 over socketpairs) before it reads, over pipes or socketpairs: replies made on the input thread wait in the output bound, not at the pipe's 64 KiB or the socket's buffer, so the writes all go through",
          arguments: ["host.ping", "feed.get"], [false, true])
    func writesBeforeReading(method: String, sockets: Bool) throws {
        let host = try RawHost(["--backend", "memory"], sockets: sockets)
        let params = method == "feed.get" ? #"{"id":"x"}"# : nil
        let total = sockets ? 12_000 : 3_000
        let requests = Array((1...total).map { H.frame(H.request($0, method, params), .ndjson) }.joined())
        // The event: every request was taken. Before, the host stopped reading once its replies filled the
        // pipe (its input thread blocked in write), and this write waited with it.
        _ = fcntl(host.input, F_SETFL, fcntl(host.input, F_GETFL) | O_NONBLOCK)
        let deadline = H.nowMilliseconds() + 60_000
        var offset = 0
        while offset < requests.count {
            var poller = pollfd(fd: host.input, events: Int16(POLLOUT), revents: 0)
            let remaining = deadline - H.nowMilliseconds()
            guard remaining > 0, poll(&poller, 1, Int32(remaining)) > 0 else {
                throw H.Failure("the host stopped reading after \(offset) bytes, with \(host.unreadOutput) bytes of replies unread")
            }
            let count = requests[offset...].withUnsafeBytes { write(host.input, $0.baseAddress, $0.count) }
            if count > 0 { offset += count }
        }
        host.closeInput()
        let text = try host.read(host.output) { String(decoding: $0, as: UTF8.self).split(separator: "\n").count >= total }
        let ids = String(decoding: text, as: UTF8.self).split(separator: "\n").compactMap { try? JSONValue(parsing: String($0))["id"]?.int64Value }
        #expect(ids.sorted() == (1...total).map { Int64($0) })
        #expect(text.count > (sockets ? 212_992 : 65_536), "the replies are more than a pipe or a socket (wmem_default) holds at first")
    }

    @Test("progress pushed while stdout is full is dropped, the answer waits, and one $/notificationsDropped counts the drops")
    func progressDropped() throws {
        let host = try RawHost(["--backend", "memory", "--max-output-bytes", "1024", "--log-level", "debug"])
        // A 128 KB answer nobody reads: the pipe fills and the host's writer is held in the middle of it.
        host.send(H.request(1, "feed.list", #"{"limit":500}"#))
        let deadline = H.nowMilliseconds() + 20_000
        while host.unreadOutput < host.outputCapacity {
            guard H.nowMilliseconds() < deadline else { throw H.Failure("stdout never filled") }
            var poller = pollfd(fd: host.errors, events: 0, revents: 0)
            _ = poll(&poller, 0, 5)
        }
        // Five progress reports while the output is full: each is dropped (the host says so on stderr).
        host.send(H.request(2, "host.sleep", #"{"ms":5,"steps":5,"_meta":{"progressToken":"p"}}"#))
        _ = try host.read(host.errors) { String(decoding: $0, as: UTF8.self).ranges(of: "dropped $/progress").count >= 5 }

        let text = try host.read(host.output) { bytes in
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            return lines.contains { $0.hasPrefix(#"{"jsonrpc":"2.0","id":2"#) } && lines.contains { $0.contains("notificationsDropped") }
        }
        let messages = String(decoding: text, as: UTF8.self).split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
        #expect(messages.contains { $0["id"] == 1 && $0["result"]?["items"]?.arrayValue?.count == 500 })
        #expect(messages.contains { $0["id"] == 2 && $0["result"] != nil })
        #expect(!messages.contains { $0["method"] == "$/progress" }, "every progress report was dropped")
        let notice = try #require(messages.first { $0["method"] == "$/notificationsDropped" })
        #expect(notice["params"] == ["count": 5, "methods": ["$/progress": 5]])
    }
}

@Suite("Draining with a full output, against the binary", .offCooperativePool)
struct BinaryDrainFullOutputTests {
    typealias H = BinaryHarness

    @Test("SIGTERM while the client reads nothing: the host cancels, stops waiting for the client after the drain time, and exits 0")
    func exitsWhileClientDoesNotRead() throws {
        let host = try BinaryDroppedPushTests.RawHost(["--backend", "memory", "--max-output-bytes", "1024", "--max-in-flight", "1",
                                                       "--drain-timeout", "100", "--log-level", "debug"])
        host.send(H.request(1, "feed.list", #"{"limit":500}"#))
        let deadline = H.nowMilliseconds() + 20_000
        while host.unreadOutput < host.outputCapacity {
            guard H.nowMilliseconds() < deadline else { throw H.Failure("stdout never filled") }
            var none = pollfd(fd: host.errors, events: 0, revents: 0)
            _ = poll(&none, 0, 5)
        }
        // One request runs, one waits for its slot; the marker's log line shows both were read.
        host.send(H.request(2, "host.sleep", #"{"ms":600000}"#))
        host.send(H.request(3, "host.sleep", #"{"ms":1}"#))
        host.send(H.notification("test/marker"))
        _ = try host.read(host.errors) { String(decoding: $0, as: UTF8.self).contains("test/marker") }
        kill(host.pid, SIGTERM)
        // The drain answers both -32800, and must not wait on the client to read them.
        #expect(host.reap(within: 30_000) == .exited(0))
    }
}

@Suite("Answers of megabytes, against the binary", .offCooperativePool)
struct BinaryLargeAnswerTests {
    typealias H = BinaryHarness

    @Test("a multi-megabyte answer arrives whole and grows the stdout pipe to 1 MiB; small ones leave it as it is",
          arguments: [H.Wire.ndjson, .lsp])
    func largeAnswerGrowsThePipe(wire: H.Wire) throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory", "--now", "2026-01-01T09:00:00Z"], wire: wire)
        let initial = host.outputPipeCapacity
        try #require(initial > 0 && initial < 1 << 18, "the test needs a pipe of Linux's default size")
        try host.send(H.request(1, "calendar.agenda", #"{"from":"2026-01-01","to":"2026-01-31","timeZone":"Europe/Berlin"}"#))
        #expect(try host.response(to: 1).response["result"]?["days"]?.arrayValue?.count == 31)
        #expect(host.outputPipeCapacity == initial, "a small answer does not grow the pipe")
        // 2001 days of the demo calendar: megabytes of JSON, many times the pipe's size.
        try host.send(H.request(2, "calendar.agenda", #"{"from":"2023-04-07","to":"2028-09-27","timeZone":"Europe/Berlin"}"#))
        let days = try host.response(to: 2).response["result"]?["days"]?.arrayValue
        #expect(days?.count == 2001)
        #expect(days?.last?["date"] == "2028-09-27")
        // Grown once, to Linux's default pipe-max-size, so the reader is woken once per megabyte.
        #expect(host.outputPipeCapacity == 1 << 20)
        try host.send(H.request(3, "host.ping"))
        #expect(try host.response(to: 3).response["result"] == "pong")
    }
}
