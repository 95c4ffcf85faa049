#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import Logging
import SchemaTesting
import SwitchboardHost
import Synchronization
import Testing

// An in-process host for tests: a dispatcher (the host's built-ins plus test-only methods), a
// `Connection` writing into a `CollectingSink`, and the `MessageReader` fed from plain threads, one at
// a time and in order. Output frames are split with `Framer`, parsed with jansson, and can be awaited
// one by one or by predicate, with a time-out that fails the test rather than hanging it. Every answer
// is checked against the schema of the method it answers, from `rpc.discover` (DiscoveredSchemas.swift).

/// How long any single await in a test may take before the test fails: five minutes, only to turn a
/// hang into a failure. Short guards (30 s) failed on a loaded 2-core machine: the binary suites'
/// synchronous tests can hold both threads of Swift's cooperative pool for tens of seconds, and the
/// in-process host's tasks (a `host.sleep` reply) wait for a thread meanwhile.
let harnessTimeout: Duration = .seconds(harnessGuardSeconds)

/// ``harnessTimeout`` in seconds.
let harnessGuardSeconds = 300 * harnessTimeScale

/// How many times longer the harness waits before failing a test: `SWITCHBOARD_TEST_TIME_SCALE` when set
/// (scripts/sanitize sets it: under a sanitizer everything runs several times slower), else 1.
let harnessTimeScale = getenv("SWITCHBOARD_TEST_TIME_SCALE").flatMap { Int(String(cString: $0)) }.map { max(1, $0) } ?? 1

// MARK: - Output frames

/// One frame the host wrote: its body text, parsed.
struct OutputFrame: Sendable, CustomStringConvertible {
    /// The body exactly as written (without the NDJSON newline or LSP header).
    let text: String
    /// The body parsed by jansson; `nil` when it was not valid JSON (a broken or interleaved frame).
    let value: JSONValue?

    var json: JSONValue { value ?? .null }
    /// The `id` member of a response.
    var id: JSONValue? { value?["id"] }
    /// The `method` member of a notification.
    var method: String? { value?["method"]?.stringValue }
    var isResponse: Bool { value?.objectValue != nil && value?["method"] == nil }
    var isBatch: Bool { value?.arrayValue != nil }
    var error: JSONValue? { value?["error"] }
    var errorCode: Int64? { error?["code"]?.int64Value }
    var result: JSONValue? { value?["result"] }

    /// The raw text of the top-level `id` member, exactly as written.
    var rawID: String? { RawJSON.memberText(named: "id", inObject: text) }

    var description: String { text }
}

/// Splits a byte stream of output frames, in either framing (detected, as the host's own framer does).
struct OutputSplitter {
    private var framer = Framer(framing: nil, maxMessageBytes: 1 << 30)

    mutating func split(_ bytes: [UInt8]) -> [OutputFrame] {
        var frames: [OutputFrame] = []
        bytes.withUnsafeBytes { buffer in
            framer.consume(buffer) { event in
                switch event {
                case .message(let body):
                    let text = String(decoding: body, as: UTF8.self)
                    frames.append(OutputFrame(text: text, value: try? JSONValue(parsing: Array(body))))
                case .oversized(let count, _, _):
                    frames.append(OutputFrame(text: "<oversized output frame of \(count) bytes>", value: nil))
                case .invalidHeader(let reason):
                    frames.append(OutputFrame(text: "<invalid output header: \(reason)>", value: nil))
                case .truncated(let expected, let received, _):
                    frames.append(OutputFrame(text: "<truncated output frame \(received)/\(expected)>", value: nil))
                }
            }
        }
        return frames
    }

    static func frames(in bytes: [UInt8]) -> [OutputFrame] {
        var splitter = OutputSplitter()
        return splitter.split(bytes)
    }
}

// MARK: - Awaiting

struct HarnessTimeout: Error, CustomStringConvertible {
    let waitingFor: String
    let seen: String
    var description: String { "timed out waiting for \(waitingFor); seen so far:\n\(seen)" }
}

/// An append-only log whose contents can be awaited: a waiter names what it wants as a function of
/// the whole log, and is resumed as soon as that function returns non-nil (or fails on time-out).
final class AwaitableLog<Element: Sendable>: Sendable {
    private struct Waiter {
        let token: Int
        let check: @Sendable ([Element]) -> (any Sendable)?
        let continuation: CheckedContinuation<any Sendable, any Error>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [Waiter] = []
        var nextToken = 0
    }

    private let state = Mutex(State())

    var elements: [Element] { state.withLock { $0.elements } }

    func append(_ new: [Element]) {
        guard !new.isEmpty else { return }
        let ready: [(Waiter, any Sendable)] = state.withLock { state in
            state.elements.append(contentsOf: new)
            var ready: [(Waiter, any Sendable)] = []
            state.waiters.removeAll { waiter in
                guard let found = waiter.check(state.elements) else { return false }
                ready.append((waiter, found))
                return true
            }
            return ready
        }
        for (waiter, found) in ready {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: found)
        }
    }

    /// Waits until `check` finds something in the log.
    func wait<R: Sendable>(
        for what: @autoclosure () -> String, timeout: Duration = harnessTimeout,
        _ check: @escaping @Sendable ([Element]) -> R?
    ) async throws -> R {
        let description = what()
        let found = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let token: Int? = state.withLock { state in
                if let found = check(state.elements) {
                    continuation.resume(returning: found)
                    return nil
                }
                let token = state.nextToken
                state.nextToken += 1
                state.waiters.append(Waiter(token: token, check: { check($0) }, continuation: continuation))
                return token
            }
            guard let token else { return }
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self?.expire(token, waitingFor: description)
            }
            let stillWaiting = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return false }
                state.waiters[index].timer = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
        return found as! R
    }

    private func expire(_ token: Int, waitingFor: String) {
        let expired: (Waiter, [Element])? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return nil }
            return (state.waiters.remove(at: index), state.elements)
        }
        guard let (waiter, seen) = expired else { return }
        let text = seen.map { "  \($0)" }.joined(separator: "\n")
        waiter.continuation.resume(throwing: HarnessTimeout(waitingFor: waitingFor, seen: text.isEmpty ? "  (nothing)" : text))
    }
}

/// A one-shot signal that plain threads can block on and tasks can await.
final class Latch: Sendable {
    private let lock = ConditionLock()
    private let flag = Mutex(false)
    private let log = AwaitableLog<Bool>()

    func open() {
        lock.withLock {
            flag.withLock { $0 = true }
            lock.broadcast()
        }
        log.append([true])
    }

    var isOpen: Bool { flag.withLock { $0 } }

    /// Blocks a plain thread (never a task) until the latch opens.
    func blockUntilOpen() {
        lock.withLock {
            while !flag.withLock({ $0 }) { lock.wait() }
        }
    }

    /// Awaits the latch, with a time-out that fails the test instead of hanging it.
    func opened(within timeout: Duration = harnessTimeout, _ what: String) async throws {
        _ = try await log.wait(for: what, timeout: timeout) { $0.first }
    }
}

// MARK: - Test-only methods

/// State shared between a test and the test-only methods of its own dispatcher.
final class Probe: Sendable {
    /// What the test methods did, in order: "start:KEY", "end:KEY", "step:KEY", "cancelled:KEY", "note:TEXT".
    let events = AwaitableLog<String>()
    private let gates = Mutex<[String: (open: Bool, waiters: [CheckedContinuation<Void, Never>])]>([:])
    private let running = Mutex<(now: Int, most: Int)>((0, 0))

    func record(_ event: String) { events.append([event]) }

    /// Lets the `test.block` request with this key finish.
    func open(_ key: String) {
        let waiters = gates.withLock { gates in
            let waiters = gates[key]?.waiters ?? []
            gates[key] = (true, [])
            return waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Waits until `open(key)` was called, or the task is cancelled.
    func gate(_ key: String) async {
        await withTaskCancellationHandler {
            await gateIgnoringCancellation(key)
        } onCancel: {
            // Wake the waiter; it sees the cancellation itself.
            self.open(key)
        }
    }

    /// Waits until `open(key)` was called, whatever happens to the task meanwhile.
    func gateIgnoringCancellation(_ key: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = gates.withLock { gates in
                if gates[key]?.open == true { return true }
                gates[key, default: (false, [])].waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func enter() { running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
    func leave() { running.withLock { $0.now -= 1 } }
    /// The most `test.block` handlers that ran at the same time.
    var mostRunningAtOnce: Int { running.withLock { $0.most } }

    func count(of event: String) -> Int { events.elements.filter { $0 == event }.count }

    /// Waits until `event` has been recorded `times` times.
    func waitFor(_ event: String, times: Int = 1) async throws {
        _ = try await events.wait(for: "event \(event) ×\(times)") { events in
            events.filter { $0 == event }.count >= times ? true : nil
        }
    }
}

/// `test.stubborn {"key": K}`: like `test.block`, but finishes its work even when cancelled.
enum TestStubborn: RPCMethod {
    static let name = "test.stubborn"
    static let summary = "Waits for the test, ignoring cancellation (tests only)."
    struct Params: Decodable, Sendable { var key: String }
    typealias Result = String
}

/// `test.block {"key": K}`: records start, waits until the test opens K (or it is cancelled), records end.
enum TestBlock: RPCMethod {
    static let name = "test.block"
    static let summary = "Test only: waits until the test lets it finish."
    struct Params: Decodable, Sendable { var key: String }
    typealias Result = String
}

/// `test.fast`: a task-run method that answers at once.
enum TestFast: RPCMethod {
    static let name = "test.fast"
    static let summary = "Test only: a task-run method that answers at once."
    typealias Result = String
}

/// `test.count {"key": K, "steps": N?}`: counts steps (one event each) until N or cancelled.
enum TestCount: RPCMethod {
    static let name = "test.count"
    static let summary = "Test only: counts steps until cancelled."
    struct Params: Decodable, Sendable {
        var key: String
        var steps: Int?
    }
    typealias Result = Int
}

/// A Swift error no handler expects.
struct UnexpectedFailure: Error, CustomStringConvertible {
    var description: String { "the disk caught fire" }
}

/// `test.boom`: a task-run method that throws an unexpected Swift error.
enum TestBoom: RPCMethod {
    static let name = "test.boom"
    static let summary = "Test only: throws an unexpected error in a task."
    typealias Result = String
}

/// `test.boomNow`: an immediate method that throws an unexpected Swift error.
enum TestBoomNow: RPCMethod {
    static let name = "test.boomNow"
    static let summary = "Test only: throws an unexpected error on the input thread."
    typealias Result = String
}

/// `test.note {"text": T}`: a notification the test can observe.
enum TestNote: RPCNotification {
    static let name = "test.note"
    static let summary = "Test only: records its text."
    struct Params: Decodable, Sendable { var text: String }
}

enum TestMethods {
    static let names = ["test.block", "test.boom", "test.boomNow", "test.count", "test.fast", "test.note", "test.stubborn"]

    static func registry(_ probe: Probe) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.register(TestBlock.self) { params, _ in
            probe.enter()
            defer { probe.leave() }
            probe.record("start:\(params.key)")
            await probe.gate(params.key)
            if Task.isCancelled {
                probe.record("cancelled:\(params.key)")
                throw CancellationError()
            }
            probe.record("end:\(params.key)")
            return params.key
        }
        registry.register(TestFast.self) { _, _ in "fast" }
        registry.register(TestStubborn.self) { params, _ in
            probe.record("start:\(params.key)")
            await probe.gateIgnoringCancellation(params.key)
            probe.record("end:\(params.key)")
            return params.key
        }
        registry.register(TestCount.self) { params, context in
            var step = 0
            do {
                while params.steps.map({ step < $0 }) ?? true {
                    try context.checkCancellation()
                    step += 1
                    probe.record("step:\(params.key)")
                    try await Task.sleep(for: .milliseconds(1))
                }
            } catch {
                probe.record("cancelled:\(params.key)")
                throw error
            }
            return step
        }
        registry.register(TestBoom.self) { _, _ in throw UnexpectedFailure() }
        registry.registerImmediate(TestBoomNow.self) { _, _ in throw UnexpectedFailure() }
        registry.registerNotification(TestNote.self) { params, _ in probe.record("note:\(params.text)") }
        return registry
    }
}

// MARK: - The harness

/// A host connection in this process, with the test-only methods registered.
final class Harness: @unchecked Sendable {
    let probe = Probe()
    let sink: CollectingSink
    let connection: Connection
    /// Every frame written, in the order the sink saw the writes.
    let frames = AwaitableLog<OutputFrame>()
    /// Owned by whichever input thread holds the baton (see `post`); never touched elsewhere.
    private let reader: MessageReader
    /// The latch of the last input job: each job waits for the one before, so the reader is driven
    /// from one thread at a time, in order.
    private let lastJob = Mutex<Latch?>(nil)
    /// Which method each request id fed so far was sent with.
    let ledger = RequestLedger()
    /// Splits what the test feeds, to fill the ledger.
    private let inputSplitter = Mutex(OutputSplitter())
    /// How many frames of `frames` have had their answers checked.
    private let checkedFrames = Mutex(0)
    private let recordsRequests = Mutex(true)
    /// Whether what is fed from now on goes into the ledger (off only to test the checks themselves).
    var checksAnswers: Bool {
        get { recordsRequests.withLock { $0 } }
        set { recordsRequests.withLock { $0 = newValue } }
    }

    /// The schemas answers are checked against.
    private let schemas: Result<AnswerSchemas, any Error>

    /// - Parameters:
    ///   - framing: the connection's framing; `nil` detects it from the first bytes.
    ///   - methods: the methods served besides the test-only ones (the host's built-ins by default), and
    ///     the schemas their answers are checked against.
    ///   - extra: adds more methods to the registry before it is frozen.
    init(limits: ConnectionLimits = ConnectionLimits(), framing: Framing? = .ndjson,
         methods: (registry: MethodRegistry, schemas: Result<AnswerSchemas, any Error>)? = nil, logger: Logger = quietLogger,
         extra: (inout MethodRegistry) -> Void = { _ in }) throws {
        var registry = methods?.registry ?? MethodRegistry.hostMethods()
        schemas = methods?.schemas ?? DiscoveredSchemas.inProcess
        registry.add(TestMethods.registry(probe))
        extra(&registry)
        let dispatcher = try registry.freeze()
        let splitter = Mutex(OutputSplitter())
        let frames = self.frames
        sink = CollectingSink { bytes in
            // Split and append under one lock, so frames enter the log in the order of the writes.
            splitter.withLock { frames.append($0.split(bytes)) }
        }
        connection = Connection(dispatcher: dispatcher, limits: limits, framing: framing, sink: sink, logger: logger)
        reader = MessageReader(connection: connection)
    }

    // MARK: Input

    /// Feeds bytes on an input thread of its own, after every earlier feed; returns at once with a
    /// latch that opens when the reader has processed them (it may block under backpressure).
    @discardableResult
    func post(_ bytes: [UInt8], chunkSize: Int? = nil) -> Latch {
        for frame in inputSplitter.withLock({ $0.split(bytes) }) where checksAnswers {
            if let message = frame.value { ledger.recordOutgoing(message) }
        }
        let done = Latch()
        let previous = lastJob.withLock { last in
            defer { last = done }
            return last
        }
        do {
            try OSThread.detach(name: "test-input") { [self] in
                previous?.blockUntilOpen()
                bytes.withUnsafeBytes { buffer in
                    let size = max(1, chunkSize ?? buffer.count)
                    var start = 0
                    repeat {
                        let end = min(buffer.count, start + size)
                        reader.receive(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                        start = end
                    } while start < buffer.count
                }
                done.open()
            }
        } catch {
            Issue.record("\(error)")
            done.open()
        }
        return done
    }

    /// Runs `job` with the reader on an input thread, in turn.
    @discardableResult
    private func postJob(_ job: @escaping @Sendable (MessageReader) -> Void) -> Latch {
        let done = Latch()
        let previous = lastJob.withLock { last in
            defer { last = done }
            return last
        }
        let box = ReaderBox(reader)
        do {
            try OSThread.detach(name: "test-input") {
                previous?.blockUntilOpen()
                job(box.reader)
                done.open()
            }
        } catch {
            Issue.record("\(error)")
            done.open()
        }
        return done
    }

    /// Feeds bytes and waits until the reader has processed them.
    func send(bytes: [UInt8], chunkSize: Int? = nil) async throws {
        try await post(bytes, chunkSize: chunkSize).opened("the reader to take \(bytes.count) bytes")
    }

    /// Feeds text as it is (no newline added).
    func send(raw text: String, chunkSize: Int? = nil) async throws {
        try await send(bytes: Array(text.utf8), chunkSize: chunkSize)
    }

    /// Feeds one NDJSON line (a newline is added).
    func send(_ line: String) async throws {
        try await send(raw: line + "\n")
    }

    /// Feeds a value as one NDJSON line.
    func send(json message: JSONValue) async throws {
        try await send(message.jsonText())
    }

    /// Ends the input, as EOF does.
    func finishInput() async throws {
        try await postJob { $0.finishInput() }.opened("finishInput")
    }

    var isStopped: Bool {
        get async throws {
            let result = Mutex(false)
            try await postJob { reader in result.withLock { $0 = reader.isStopped } }.opened("isStopped")
            return result.withLock { $0 }
        }
    }

    // MARK: Output

    /// Checks the answers among the frames written so far (each once) against the schemas from
    /// `rpc.discover`: a result against its method's result schema, an error against the JSON-RPC
    /// error object; a mismatch is a test issue. Every way of reading frames below calls it, and so
    /// does `deinit`, so no answer goes unchecked.
    func expectValidAnswers(sourceLocation: SourceLocation = #_sourceLocation) {
        let written = frames.elements
        checkedFrames.withLock { checked in
            for frame in written[min(checked, written.count)...] {
                if let message = frame.value {
                    schemas.expectValidAnswers(in: message, ledger: ledger, sourceLocation: sourceLocation)
                }
            }
            checked = max(checked, written.count)
        }
    }

    deinit { expectValidAnswers() }

    /// Waits for the `index`-th frame (0-based) the host wrote.
    func frame(_ index: Int) async throws -> OutputFrame {
        defer { expectValidAnswers() }
        return try await frames.wait(for: "frame #\(index)") { $0.count > index ? $0[index] : nil }
    }

    /// Waits for the first frame satisfying `predicate`.
    func frame(where what: String, _ predicate: @escaping @Sendable (OutputFrame) -> Bool) async throws -> OutputFrame {
        defer { expectValidAnswers() }
        return try await frames.wait(for: what) { $0.first(where: predicate) }
    }

    /// Waits for the single response with this id; fails if more than one arrives by then.
    func reply(to id: JSONValue) async throws -> OutputFrame {
        let frame = try await frame(where: "the response to id \(id.jsonText())") { $0.isResponse && $0.id == id }
        let replies = frames.elements.filter { $0.isResponse && $0.id == id }
        #expect(replies.count == 1, "id \(id.jsonText()) was answered \(replies.count) times")
        return frame
    }

    /// Sends a request and waits for its response.
    func call(_ method: String, params: JSONValue? = nil, id: JSONValue) async throws -> OutputFrame {
        try await send(json: request(method, params: params, id: id))
        return try await reply(to: id)
    }

    /// Sends a notification.
    func notify(_ method: String, params: JSONValue? = nil) async throws {
        var message: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { message["params"] = params }
        try await send(json: .object(message))
    }

    /// Waits until no request runs or waits for a slot (on a plain thread, never the task pool).
    func waitUntilIdle() async throws {
        let result = Latch()
        let ok = Mutex(false)
        let connection = self.connection
        try OSThread.detach(name: "test-idle") {
            let idle = connection.waitUntilIdle(deadline: monotonicNanoseconds() + UInt64(harnessGuardSeconds) * 1_000_000_000)
            ok.withLock { $0 = idle }
            result.open()
        }
        try await result.opened("the connection to become idle")
        #expect(ok.withLock { $0 }, "the connection did not become idle")
        expectValidAnswers()
    }

    /// Every frame written so far, split from the sink's bytes (the authoritative order of bytes).
    var writtenFrames: [OutputFrame] {
        expectValidAnswers()
        return OutputSplitter.frames(in: sink.bytes)
    }

    var outputText: String { String(decoding: sink.bytes, as: UTF8.self) }
}

/// Hands the reader to an input thread.
private final class ReaderBox: @unchecked Sendable {
    let reader: MessageReader
    init(_ reader: MessageReader) { self.reader = reader }
}

let quietLogger = Logger(label: "switchboard.tests") { _ in SwiftLogNoOpLogHandler() }

/// A request object.
func request(_ method: String, params: JSONValue? = nil, id: JSONValue) -> JSONValue {
    var message: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
    if let params { message["params"] = params }
    return .object(message)
}

// MARK: - Checking responses

/// Checks the envelope of a response: exactly `jsonrpc` "2.0", `id`, and one of `result` / `error`,
/// and an `error` with an integer `code`, a string `message` and optional `data`, nothing else.
func expectEnvelope(_ response: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let object = response.objectValue else {
        Issue.record("a response must be an object, got \(response.jsonText())", sourceLocation: sourceLocation)
        return
    }
    let keys = Set(object.keys)
    #expect(object.count == 3, "a response has three members: \(response.jsonText())", sourceLocation: sourceLocation)
    #expect(keys == ["jsonrpc", "id", "result"] || keys == ["jsonrpc", "id", "error"],
            "members must be jsonrpc, id and one of result/error: \(response.jsonText())", sourceLocation: sourceLocation)
    #expect(object["jsonrpc"] == "2.0", sourceLocation: sourceLocation)
    if let error = object["error"] {
        let errorKeys = Set(error.objectValue?.keys ?? [])
        #expect(errorKeys == ["code", "message"] || errorKeys == ["code", "message", "data"],
                "error members: \(error.jsonText())", sourceLocation: sourceLocation)
        #expect(error["code"]?.int64Value != nil, "error.code must be an integer", sourceLocation: sourceLocation)
        #expect(error["message"]?.stringValue?.isEmpty == false, "error.message must be a string", sourceLocation: sourceLocation)
    }
}

/// Checks a successful response: envelope, id, result.
func expectResult(_ frame: OutputFrame, id: JSONValue, _ result: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(frame.value != nil, "frame is not JSON: \(frame.text)", sourceLocation: sourceLocation)
    expectEnvelope(frame.json, sourceLocation: sourceLocation)
    #expect(frame.id == id, "id in \(frame.text)", sourceLocation: sourceLocation)
    #expect(frame.result == result, "result in \(frame.text)", sourceLocation: sourceLocation)
}

/// Checks an error response: envelope, id, code; returns the error object.
@discardableResult
func expectError(_ frame: OutputFrame, id: JSONValue, code: Int64, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
    expectErrorValue(frame.json, id: id, code: code, sourceLocation: sourceLocation)
}

@discardableResult
func expectErrorValue(_ response: JSONValue, id: JSONValue, code: Int64, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
    expectEnvelope(response, sourceLocation: sourceLocation)
    #expect(response["id"] == id, "id in \(response.jsonText())", sourceLocation: sourceLocation)
    #expect(response["error"]?["code"]?.int64Value == code, "code in \(response.jsonText())", sourceLocation: sourceLocation)
    #expect(response["result"] == nil, sourceLocation: sourceLocation)
    return response["error"] ?? .null
}

// MARK: - Raw JSON text

/// Reads the raw text of one member of a top-level JSON object, without reparsing numbers.
enum RawJSON {
    static func memberText(named name: String, inObject text: String) -> String? {
        let bytes = Array(text.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 } }
        func skipString() -> String? {
            guard index < bytes.count, bytes[index] == 0x22 else { return nil }
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != 0x22 {
                index += bytes[index] == 0x5C ? 2 : 1
            }
            index += 1
            return try? JSONValue(parsing: Array(bytes[start..<min(index, bytes.count)])).stringValue
        }
        func skipValue() {
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case 0x22: _ = skipString(); continue
                case 0x5B, 0x7B: depth += 1
                case 0x5D, 0x7D:
                    if depth == 0 { return }
                    depth -= 1
                case 0x2C where depth == 0: return
                default: break
                }
                index += 1
            }
        }
        skipSpace()
        guard index < bytes.count, bytes[index] == 0x7B else { return nil }
        index += 1
        while index < bytes.count {
            skipSpace()
            guard let key = skipString() else { return nil }
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x3A else { return nil }
            index += 1
            skipSpace()
            let start = index
            skipValue()
            if key == name {
                return String(decoding: bytes[start..<index], as: UTF8.self).trimmingSpaces()
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x2C else { return nil }
            index += 1
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " || text.last == "\n" || text.last == "\t" || text.last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
