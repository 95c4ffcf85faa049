import CJansson
import Jansson
import Logging
import Synchronization

/// One JSON-RPC peer: the state shared by the input thread, the request tasks and anyone who sends
/// the peer a notification.
///
/// Bytes from the peer go through a ``MessageReader`` (one per connection, on one thread); frames to
/// the peer go to a ``FrameSink``. The same type serves the host's stdio and, later, plugin pipes.
public final class Connection: Sendable {
    public let dispatcher: Dispatcher
    public let limits: ConnectionLimits
    public let logger: Logger
    /// What methods remember about this peer between requests.
    public let session = ConnectionSession()
    let sink: any FrameSink
    let inFlight = InFlightTable()
    /// What handlers left to do after their answers, not done yet (``PromisedWork``).
    let promisedWork = PromisedWork()
    let writers = WriterPool()
    let gate: AdmissionGate
    /// What a request finds when the gate is full.
    let admission: AdmissionPolicy
    private let framingCode: Atomic<UInt8>
    /// Read for every message, so atomics rather than a lock.
    private let shutdownRequested = Atomic<Bool>(false)
    private let exitCode = Atomic<Int32>(-1)
    private let accepting = Atomic<Bool>(true)
    let outgoing = Mutex(OutgoingRequests())
    /// Pushed notifications the output had no room for, not yet reported.
    let dropped = Mutex(DroppedNotifications())
    /// Messages sent before the framing was known.
    let held = Mutex(HeldMessages())
    /// Who waits for output room or for the end (subscriptions).
    let lifetime = Mutex(ConnectionLifetime())
    /// How notifications are worded for this peer (``speak(_:)``); nil: as the host names them.
    let dialect = Mutex<NotificationDialect?>(nil)
    /// The error a peer's failed answer becomes (``responseError(_:)`` unless the owner says
    /// otherwise). Errors the host makes itself (``abandonRequest(_:with:)``,
    /// ``closeOutgoing(failing:)``) never pass through it, so the owner can tell the two apart.
    let peerError: @Sendable (PeerFailure) -> ResponseError
    /// Whether a message with lone surrogate escapes is refused (a client's) or read with U+FFFD.
    let loneSurrogates: LoneSurrogatePolicy

    public init(dispatcher: Dispatcher, limits: ConnectionLimits = ConnectionLimits(), framing: Framing? = nil,
                sink: any FrameSink, logger: Logger, admission: AdmissionPolicy = .wait,
                loneSurrogates: LoneSurrogatePolicy = .refuse,
                peerError: @escaping @Sendable (PeerFailure) -> ResponseError = Connection.responseError) {
        self.dispatcher = dispatcher
        self.loneSurrogates = loneSurrogates
        self.peerError = peerError
        self.admission = admission
        self.limits = limits
        self.sink = sink
        self.logger = logger
        self.gate = AdmissionGate(maxRunning: limits.maxInFlight, maxWaiting: limits.maxInFlight)
        self.framingCode = Atomic(Self.code(for: framing))
        sink.setRoomHandler { [weak self] in self?.outputHasRoom() }
    }

    // MARK: Framing

    /// The framing of the stream: given, or detected from the first bytes; `nil` before either.
    public var framing: Framing? {
        switch framingCode.load(ordering: .relaxed) {
        case 1: .ndjson
        case 2: .lsp
        default: nil
        }
    }

    /// Records the framing the input showed, then sends what was held until it was known, framed, ahead
    /// of anything sent from now on (senders that find no framing take the same lock).
    func recordFraming(_ framing: Framing) {
        let (output, hadDrops): ([UInt8], Bool) = held.withLock { held in
            framingCode.store(Self.code(for: framing), ordering: .sequentiallyConsistent)
            var output: [UInt8] = []
            for body in held.bodies { body.withUnsafeBytes { framing.appendFrame(body: $0, to: &output) } }
            let hadDrops = held.dropped
            held = HeldMessages()
            // Nothing can have been queued before the framing was known, so the sink takes it at once.
            return sink.offer(output) ? ([], hadDrops) : (output, hadDrops)
        }
        if !output.isEmpty { sink.writeFromInput(output) }
        if hadDrops { reportDroppedNotifications() }
    }

    private static func code(for framing: Framing?) -> UInt8 {
        switch framing {
        case .ndjson: 1
        case .lsp: 2
        case nil: 0
        }
    }

    /// Frames a message in the stream's framing (NDJSON until one is known).
    func frame(_ message: JanssonValue, writer: JSONWriter, into output: inout [UInt8]) {
        let framing = framing ?? .ndjson
        if ResponseText.appendFrame(ofRawResponse: message.view, framing: framing, writer: writer, to: &output) { return }
        writer.withBytes(of: message.view) { framing.appendFrame(body: $0, to: &output) }
    }

    // MARK: Notifications to the peer

    /// Sends a notification to the peer; the general path for everything the host pushes on its own
    /// (progress, chat messages, change events). Dropped while the output is full; the peer then
    /// receives one `$/notificationsDropped` once there is room again.
    public func notify(method: String, params: JSONValue?) {
        guard let (method, params) = wordedOwn(method, params) else { return }
        push(OutgoingMessage.notification(method: method, params: params?.makeJansson()), method: method)
    }

    /// Sends a notification whose params are any `Encodable` value.
    public func notify<P: Encodable>(method: String, encoding params: P) throws {
        let encoded = try ResultEncoding.encode(params)
        if hasDialect { return notify(method: method, params: JSONValue(encoded.view)) }
        push(OutgoingMessage.notification(method: method, params: encoded), method: method)
    }

    // MARK: Lifecycle

    /// LSP `shutdown`: later requests are refused with `-32600`.
    public func beginShutdown() { shutdownRequested.store(true, ordering: .sequentiallyConsistent) }

    public var isShuttingDown: Bool { shutdownRequested.load(ordering: .relaxed) }

    /// LSP `exit`: stop reading; the exit code is 0 after `shutdown`, 1 without.
    public func requestExit() {
        exitCode.store(isShuttingDown ? 0 : 1, ordering: .sequentiallyConsistent)
    }

    /// Set once `exit` was received.
    public var requestedExitCode: Int32? {
        let code = exitCode.load(ordering: .relaxed)
        return code < 0 ? nil : code
    }

    /// How many requests run or wait for a slot.
    public var inFlightCount: Int { inFlight.count }

    /// Cancels the running request `id` as `$/cancelRequest` would: it answers when it stops (an import
    /// says what it stored). One still waiting for a slot is left as it is. Whether `id` was in flight.
    @discardableResult
    public func cancelRunning(_ id: RequestID) -> Bool {
        inFlight.cancel(id).found > 0
    }

    /// Cancels every request in flight (used when draining runs out of time); those still waiting
    /// for a slot are answered `-32800` at once.
    ///
    /// Each such answer is queued before this returns, without waiting for room in the output (a
    /// client that stopped reading must not hold the drain) and without needing a thread of the task
    /// pool (requests that ignore their cancel may hold them all), so the drain's flush writes it; one
    /// the full output refuses is sent from a task that waits for room. A batch such an answer
    /// completes then gets its after-answer work, waited for until `deadline` (monotonic ns); `false`
    /// when some of it was still running then.
    @discardableResult
    public func cancelAll(heldWorkDeadline deadline: UInt64) -> Bool {
        var completed: [BatchCollector] = []
        for request in inFlight.cancelAll() {
            inFlight.remove(request)
            guard let message = answer(.failure(.cancelled), for: request.context, target: request.target) else { continue }
            let collector = heldWork(completedBy: request)
            if holdUntilFramed(message) || sink.offer(framed(message)) {
                if let collector { completed.append(collector) }
                continue
            }
            Task {
                await self.sink.enqueue(self.framed(message))
                await collector?.runHeldActions()
            }
        }
        return runHeldWork(of: completed, until: deadline)
    }

    /// The drain's last step at exit: answers `-32800` (``ResponseError/abandoned``: what it wrote is
    /// unknown) for each request still in flight after
    /// ``cancelAll(heldWorkDeadline:)`` (its task ignores cancellation), without waiting for room in the output; an
    /// answer its task makes later is dropped (``InFlightRequest/claimAnswer()``).
    ///
    /// A batch's array completed here still gets its members' after-answer work (a `chat.send` in it
    /// was answered `pending`, and is stored and confirmed now), waited for until `deadline`
    /// (monotonic ns); `false` when some of it was still running then.
    @discardableResult
    public func abandonRunning(heldWorkDeadline deadline: UInt64) -> Bool {
        var completed: [BatchCollector] = []
        for request in inFlight.removeAll() where request.claimAnswer() {
            request.detach()
            guard let message = answer(.failure(.abandoned), for: request.context, target: request.target) else { continue }
            if let collector = heldWork(completedBy: request) { completed.append(collector) }
            guard !holdUntilFramed(message) else { continue }
            _ = sink.offer(framed(message))
        }
        return runHeldWork(of: completed, until: deadline)
    }

    /// The batch whose array the drain's answer to `request` just completed, when it holds after-answer work.
    private func heldWork(completedBy request: InFlightRequest) -> BatchCollector? {
        guard case .batch(let collector, _) = request.target, collector.hasHeldActions else { return nil }
        return collector
    }

    /// Runs the after-answer work of the batches the drain completed, waited for until `deadline`
    /// (monotonic ns); `false` when some of it was still running then.
    private func runHeldWork(of completed: [BatchCollector], until deadline: UInt64) -> Bool {
        guard !completed.isEmpty else { return true }
        return PlainThreadWait.run(until: deadline) {
            for collector in completed { await collector.runHeldActions() }
        }
    }

    /// Waits until no request runs or waits; `false` if `deadline` (monotonic ns) passed first.
    @discardableResult
    public func waitUntilIdle(deadline: UInt64? = nil) -> Bool {
        gate.waitUntilIdle(deadline: deadline)
    }

    /// How much work handlers left for after their answers (a `chat.send`'s store) has not run yet.
    public var promisedWorkCount: Int { promisedWork.count }

    /// Waits until the work handlers left for after their answers has run (a host's last wait before
    /// it exits: a `chat.send` answered `pending` is stored, or fails and says so); `false` if
    /// `deadline` (monotonic ns) passed first.
    @discardableResult
    public func waitForPromisedWork(deadline: UInt64) -> Bool { promisedWork.wait(until: deadline) }

    /// Blocks until everything sent has been written; with a deadline (monotonic ns), false if it
    /// passed first.
    @discardableResult
    public func flush(deadline: UInt64? = nil) -> Bool { sink.flush(deadline: deadline) }

    /// Draining: requests read from now on are refused with `-32600`, notifications ignored.
    public func stopAccepting() { accepting.store(false, ordering: .sequentiallyConsistent) }

    public var isAccepting: Bool { accepting.load(ordering: .relaxed) }
}
