import Synchronization
import SwitchboardCore

/// A chat service that shows the failure a ``ChatSimulation`` names, in front of a real one.
///
/// The same for every run: the rate limit's reset time comes from the clock (`--now` fixes it),
/// debug ids from a counter. Subscriptions keep working under every mode: ``messages(roomId:after:limit:)``
/// and ``state()`` pass straight through.
public final class SimulatedChatService: ChatService {
    /// How long a send is held in `slow` mode when no other request releases it first.
    public static let slowHold: Duration = .seconds(2)
    /// The rate limit's window: `resetAt` is this far ahead of the clock.
    public static let rateLimitWindowMs: Int64 = 60_000

    private let base: any ChatService
    private let mode: ChatSimulation
    private let clock: any WallClock
    private let failures = Atomic<UInt64>(0)
    private let held = HeldSends()

    private let hold: Duration

    /// - Parameter hold: how long a send is held at most in `slow` mode (``slowHold``; tests lengthen it).
    public init(_ base: any ChatService, mode: ChatSimulation, clock: any WallClock, hold: Duration = slowHold) {
        self.base = base
        self.mode = mode
        self.clock = clock
        self.hold = hold
    }

    public var signal: ChangeSignal { base.signal }

    /// Throws the simulated error, or releases held sends (`slow`): a client's request, not the writer's store.
    private func enter(releasing: Bool = true) throws(ServiceError) {
        switch mode {
        case .rateLimit:
            throw ServiceError.rateLimited(resetAt: clock.now() + Self.rateLimitWindowMs, retryAfterMs: Self.rateLimitWindowMs)
        case .serverError:
            let number = failures.add(1, ordering: .relaxed).newValue
            var generator = SplitMix64(seed: number)
            throw ServiceError.serviceFailure(debugId: DebugID.make(using: &generator), cause: "simulated server error (--simulate server-error), failure \(number)")
        case .slow:
            if releasing { held.releaseAll() }
        }
    }

    public func users(except user: String, page: PageRequest) async throws -> Page<ChatUser> {
        try enter()
        return try await base.users(except: user, page: page)
    }

    public func user(id: String) async throws -> ChatUser? {
        try enter()
        return try await base.user(id: id)
    }

    public func rooms(user: String) async throws -> [ChatRoom] {
        try enter()
        return try await base.rooms(user: user)
    }

    public func room(user: String, id: String) async throws -> ChatRoom? {
        try enter()
        return try await base.room(user: user, id: id)
    }

    public func openDirect(user: String, with other: String) async throws -> Committed<OpenedRoom> {
        try enter()
        return try await base.openDirect(user: user, with: other)
    }

    public func history(user: String, roomId: String, page: PageRequest) async throws -> Page<ChatMessage> {
        try enter()
        return try await base.history(user: user, roomId: roomId, page: page)
    }

    public func markRead(user: String, roomId: String, upTo messageId: String) async throws -> Committed<ChatRoom> {
        try enter()
        return try await base.markRead(user: user, roomId: roomId, upTo: messageId)
    }

    public func sentMessage(sender: String, clientMessageId: String) async throws -> ChatMessage? {
        try enter()
        return try await base.sentMessage(sender: sender, clientMessageId: clientMessageId)
    }

    /// Each request's sends are held from their check: the writer reaches a send only after the sends
    /// queued before it, so a hold timed from there held ten sends of one burst 2 s each, one after another.
    public func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        try enter(releasing: false)
        if mode == .slow { await held.hold(HeldSends.Key(sender: sender, clientMessageId: clientMessageId), atMost: hold) }
        return try await base.send(sender: sender, roomId: roomId, text: text, clientMessageId: clientMessageId)
    }

    /// `chat.send`'s check, before it answers `pending`: in `slow` mode the send's hold starts here.
    public func sendCheck(sender: String, roomId: String, clientMessageId: String) async throws -> ChatSendCheck {
        try enter()
        let check = try await base.sendCheck(sender: sender, roomId: roomId, clientMessageId: clientMessageId)
        if mode == .slow, check.stored == nil, check.isMember { held.checked(HeldSends.Key(sender: sender, clientMessageId: clientMessageId)) }
        return check
    }

    /// Returns once a send is held (`slow`): for code that must release it by its next request, not
    /// by the hold's time limit.
    public func untilSendHeld() async {
        await held.untilHeld()
    }

    public func messages(roomId: String, after sinceState: String, limit: Int) async throws -> ChatMessageBatch {
        try await base.messages(roomId: roomId, after: sinceState, limit: limit)
    }

    public func state() async throws -> String { try await base.state() }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try enter()
        return try await base.changes(since: sinceState, limit: limit)
    }
}

/// Sends waiting in `slow` mode. A send is held from its check until a chat request made after that
/// check (``releaseAll()``), or until its time limit from the check has passed, whichever is first.
final class HeldSends: Sendable {
    struct Key: Hashable {
        var sender: ExactID
        var clientMessageId: ExactID

        init(sender: String, clientMessageId: String) {
            self.sender = ExactID(sender)
            self.clientMessageId = ExactID(clientMessageId)
        }
    }

    private struct Check {
        /// ``Waiting/releases`` at the check.
        var releases: UInt64
        var at: ContinuousClock.Instant
    }

    private struct Waiting {
        /// How many times ``releaseAll()`` ran: a send checked before the latest is not held.
        var releases: UInt64 = 0
        /// Sends checked and not reached by the writer yet. One whose answer never went out is
        /// forgotten after ``forgetAfter``.
        var checks: [Key: Check] = [:]
        var nextID: UInt64 = 0
        var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiting for a send to be held.
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private static let forgetAfter: Duration = .seconds(60)
    private let waiting = Mutex(Waiting())

    /// Starts the hold of the send `key`: its `chat.send` is about to answer `pending`.
    func checked(_ key: Key) {
        let now = ContinuousClock.now
        waiting.withLock { waiting in
            if waiting.checks.count >= 1_024 { waiting.checks = waiting.checks.filter { now - $0.value.at < Self.forgetAfter } }
            waiting.checks[key] = Check(releases: waiting.releases, at: now)
        }
    }

    /// Suspends until ``releaseAll()`` runs after the send's check, or until `limit` after the check
    /// (after now for a send not checked: a direct call of the service).
    func hold(_ key: Key, atMost limit: Duration) async {
        let now = ContinuousClock.now
        var timer: Task<Void, Never>?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let held = waiting.withLock { waiting -> (id: UInt64, remaining: Duration, watchers: [CheckedContinuation<Void, Never>])? in
                let check = waiting.checks.removeValue(forKey: key) ?? Check(releases: waiting.releases, at: now)
                let remaining = check.at + limit - now
                guard check.releases == waiting.releases, remaining > .zero else { return nil }
                waiting.nextID += 1
                waiting.continuations[waiting.nextID] = continuation
                defer { waiting.watchers = [] }
                return (waiting.nextID, remaining, waiting.watchers)
            }
            guard let held else {
                continuation.resume()
                return
            }
            held.watchers.forEach { $0.resume() }
            // Started once the continuation is in place, so its release always finds it.
            timer = Task { [self] in
                try? await Task.sleep(for: held.remaining)
                release(held.id)
            }
        }
        timer?.cancel()
    }

    /// Returns once at least one send is held.
    func untilHeld() async {
        await withCheckedContinuation { continuation in
            let held = waiting.withLock { waiting in
                if waiting.continuations.isEmpty { waiting.watchers.append(continuation) }
                return !waiting.continuations.isEmpty
            }
            if held { continuation.resume() }
        }
    }

    /// Releases every send held, and every send checked so far.
    func releaseAll() {
        let all = waiting.withLock { waiting in
            waiting.releases &+= 1
            defer { waiting.continuations = [:] }
            return Array(waiting.continuations.values)
        }
        all.forEach { $0.resume() }
    }

    private func release(_ id: UInt64) {
        waiting.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
    }
}
