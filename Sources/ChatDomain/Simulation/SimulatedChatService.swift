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

    public init(_ base: any ChatService, mode: ChatSimulation, clock: any WallClock) {
        self.base = base
        self.mode = mode
        self.clock = clock
    }

    public var signal: ChangeSignal { base.signal }

    /// Throws the simulated error, or releases held sends (`slow`).
    private func enter() throws(ServiceError) {
        switch mode {
        case .rateLimit:
            throw ServiceError.rateLimited(resetAt: clock.now() + Self.rateLimitWindowMs, retryAfterMs: Self.rateLimitWindowMs)
        case .serverError:
            let number = failures.add(1, ordering: .relaxed).newValue
            var generator = SplitMix64(seed: number)
            throw ServiceError.serviceFailure(debugId: DebugID.make(using: &generator), cause: "simulated server error (--simulate server-error), failure \(number)")
        case .slow:
            held.releaseAll()
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

    public func send(sender: String, roomId: String, text: String, clientMessageId: String) async throws -> Committed<ChatMessage> {
        try enter()
        if mode == .slow { await held.hold(atMost: Self.slowHold) }
        return try await base.send(sender: sender, roomId: roomId, text: text, clientMessageId: clientMessageId)
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

/// Sends waiting in `slow` mode, each released by the next request or by its own time limit.
final class HeldSends: Sendable {
    private struct Waiting {
        var nextID: UInt64 = 0
        var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiting for a send to be held.
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private let waiting = Mutex(Waiting())

    /// Suspends until ``releaseAll()`` or until `limit` has passed.
    func hold(atMost limit: Duration) async {
        let id = waiting.withLock { waiting in
            waiting.nextID += 1
            return waiting.nextID
        }
        var timer: Task<Void, Never>?
        await withCheckedContinuation { continuation in
            let watchers = waiting.withLock { waiting in
                waiting.continuations[id] = continuation
                defer { waiting.watchers = [] }
                return waiting.watchers
            }
            watchers.forEach { $0.resume() }
            // Started once the continuation is in place, so its release always finds it.
            timer = Task { [self] in
                try? await Task.sleep(for: limit)
                release(id)
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

    func releaseAll() {
        let all = waiting.withLock { waiting in
            defer { waiting.continuations = [:] }
            return Array(waiting.continuations.values)
        }
        all.forEach { $0.resume() }
    }

    private func release(_ id: UInt64) {
        waiting.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
    }
}
