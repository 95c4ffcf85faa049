import Jansson
import JSONRPC
import Logging
import Synchronization
import Testing

/// Deferred methods: answered later from any thread with no task, reached by `$/cancelRequest`, and
/// refused at once past the slots of a connection that refuses instead of waiting.
@Suite("Deferred answers", .timeLimit(.minutes(10)))
struct DeferredAnswerTests {
    /// A connection whose one method, `test.later`, keeps every answer for the test to give; used by
    /// one test at a time, on its own thread.
    final class Peer {
        let sink = CollectingSink()
        let connection: Connection
        let reader: MessageReader
        private let answers = Answers()

        /// The answers given out so far, shared with the method.
        final class Answers: Sendable {
            let list = Mutex<[DeferredAnswer]>([])
        }

        init(admission: AdmissionPolicy = .wait, maxInFlight: Int = 64, onCancel: Bool = false) throws {
            var registry = MethodRegistry()
            let answers = self.answers
            registry.add(.deferred(name: "test.later", summary: "Answers when the test says.") { _ in
                { _, answer in
                    if onCancel { answer.onCancel { answer.fail(ResponseError.cancelled) } }
                    answers.list.withLock { $0.append(answer) }
                }
            })
            connection = Connection(dispatcher: try registry.freeze(), limits: ConnectionLimits(maxInFlight: maxInFlight), framing: .ndjson,
                                    sink: sink, logger: Logger(label: "test"), admission: admission)
            reader = MessageReader(connection: connection)
        }

        /// Answers what the test left pending: an unanswered request holds its connection (as a plugin's
        /// call does until the plugin answers, fails or times out), which would outlive the test.
        deinit {
            for answer in takePending() { answer.fail(ResponseError.cancelled) }
        }

        func receive(_ lines: [String]) {
            Array(lines.map { $0 + "\n" }.joined().utf8).withUnsafeBytes { reader.receive($0) }
        }

        var pending: [DeferredAnswer] { answers.list.withLock { $0 } }

        /// The answers given out so far, no longer kept by the peer.
        func takePending() -> [DeferredAnswer] {
            answers.list.withLock { list in
                defer { list = [] }
                return list
            }
        }

        /// Every message written so far.
        var written: [JSONValue] {
            sink.bytes.split(separator: 0x0A).compactMap { try? JSONValue(parsing: Array($0)) }
        }
    }

    @Test("a deferred method is answered by whoever completes it, once, with the result as given")
    func answeredLater() throws {
        let peer = try Peer()
        peer.receive([#"{"jsonrpc":"2.0","id":7,"method":"test.later"}"#])
        #expect(peer.written.isEmpty)
        let answer = try #require(peer.pending.first)
        try TestThread { answer.succeed(JanssonValue.string("done")) }.join()
        answer.fail(ResponseError.internalError("too late"))
        #expect(peer.written == [["jsonrpc": "2.0", "id": 7, "result": "done"]])
        #expect(peer.connection.inFlightCount == 0)
    }

    @Test("an answered deferred request is let go: neither its cancel hook nor its own handler keeps it")
    func answeredIsReleased() throws {
        let peer = try Peer(onCancel: true)
        peer.receive([#"{"jsonrpc":"2.0","id":1,"method":"test.later"}"#])
        weak var released: DeferredAnswer?
        do {
            let answer = try #require(peer.takePending().first)
            released = answer
            answer.succeed(JanssonValue.null)
        }
        #expect(peer.written == [["jsonrpc": "2.0", "id": 1, "result": nil]])
        #expect(released == nil, "the answer (with its request and context) outlived its answer: a leak per call")
    }

    @Test("$/cancelRequest reaches a deferred method's cancel handler, which answers -32800")
    func cancelled() throws {
        let peer = try Peer(onCancel: true)
        peer.receive([#"{"jsonrpc":"2.0","id":1,"method":"test.later"}"#, #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#])
        #expect(peer.written.first?["error"]?["code"] == -32800)
        #expect(peer.written.first?["id"] == 1)
    }

    @Test("past its slots and queue, a connection that refuses answers at once and keeps reading")
    func refusedWhenFull() throws {
        let peer = try Peer(admission: .refuse { method, limit in ResponseError(code: ErrorCode(rawValue: -32099), message: "\(method) busy (\(limit))") },
                            maxInFlight: 1)
        peer.receive((1...3).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"test.later"}"# })
        #expect(peer.written == [["jsonrpc": "2.0", "id": 3, "error": ["code": -32099, "message": "test.later busy (2)"]]])
        peer.pending.first?.succeed(JanssonValue.null)
        #expect(peer.written.count == 2, "the queued request runs in the freed slot")
        #expect(peer.pending.count == 2)
    }
}

/// Runs `body` on a thread of its own; ``join()`` waits for it.
final class TestThread: Sendable {
    private let done = Mutex(false)
    private let lock = ConditionLock()

    init(_ body: @escaping @Sendable () -> Void) throws {
        try OSThread.detach(name: "test-deferred") { [self] in
            body()
            lock.withLock {
                done.withLock { $0 = true }
                lock.broadcast()
            }
        }
    }

    func join() {
        lock.withLock { while !done.withLock({ $0 }) { lock.wait() } }
    }
}
