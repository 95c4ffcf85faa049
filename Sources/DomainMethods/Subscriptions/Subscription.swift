import Jansson
import JSONRPC
import Logging
import Synchronization
import SwitchboardCore

/// One live subscription: reads its feed when woken and sends each event to its connection, in
/// order, exactly once.
///
/// Events go out only when the output takes them whole (``Connection/offerNotification(method:params:)``).
/// While the client is not reading, they wait in this subscription's queue; past
/// ``SubscriptionHub/maxQueuedEvents`` the subscription ends with `host.subscriptionDropped`, naming
/// the state of the last event delivered, and the client resyncs from it with `*.changes`.
/// At most one pump runs per subscription; a wake-up during it makes it read again.
final class Subscription: Sendable {
    let id: String
    let namespace: String
    let connection: Connection
    private let feed: any SubscriptionFeed
    private let maxQueued: Int
    private let state: Mutex<PumpState>
    /// Called once when the subscription ends, to take it out of the hub.
    private let onEnd: @Sendable (Subscription) -> Void

    /// Events read per feed call.
    static let batchSize = 100

    private struct PumpState: Sendable {
        /// After everything read from the feed.
        var readPosition: String
        /// After the last event delivered (or skipped): what a dropped client resyncs from.
        var deliveredPosition: String
        var queue: [SubscriptionEvent] = []
        /// Set once the subscribe answer is out: nothing is delivered before the client knows the id.
        var started = false
        var running = false
        var woken = false
        var ended = false
    }

    init(id: String, namespace: String, connection: Connection, feed: any SubscriptionFeed, position: String,
         maxQueued: Int, onEnd: @escaping @Sendable (Subscription) -> Void) {
        self.id = id
        self.namespace = namespace
        self.connection = connection
        self.feed = feed
        self.maxQueued = maxQueued
        self.onEnd = onEnd
        state = Mutex(PumpState(readPosition: position, deliveredPosition: position))
    }

    /// Starts delivering: called once the subscribe answer is queued.
    func begin() {
        state.withLock { $0.started = true }
        wake()
    }

    /// Something may have changed, or the output has room again: read and deliver.
    func wake() {
        let startPump = state.withLock { state -> Bool in
            guard state.started, !state.ended else { return false }
            if state.running {
                state.woken = true
                return false
            }
            state.running = true
            state.woken = false
            return true
        }
        if startPump { Task { await pump() } }
    }

    /// Ends it without a notice (unsubscribed, or the connection closed).
    func cancel() {
        _ = finish()
    }

    var isEnded: Bool { state.withLock { $0.ended } }

    private func pump() async {
        while true {
            deliverQueued()
            let position = state.withLock { $0.readPosition }
            let step: SubscriptionStep
            do {
                step = try await feed.events(after: position, limit: Self.batchSize)
            } catch ServiceError.storageUnavailable {
                // The storage is away for now (a lost PostgreSQL connection): the subscription keeps its
                // position and reads again at the next wake-up (the listener posts one after reconnecting).
                if idleUnlessWoken() { return }
                continue
            } catch {
                drop(reason: Self.reason(for: error), message: "\(error)")
                return
            }
            let overflow = state.withLock { state -> Bool in
                guard !state.ended else { return false }
                if feed.coalesces, let newest = step.events.last {
                    state.queue = [newest]
                } else {
                    state.queue.append(contentsOf: step.events)
                }
                state.readPosition = step.position
                return state.queue.count > maxQueued
            }
            if overflow {
                drop(reason: "slowConsumer", message: "more than \(maxQueued) events waited for the client to read")
                return
            }
            deliverQueued()
            // A feed that reports more but did not move would spin: wait for the next wake-up instead.
            if step.hasMore, step.position != position { continue }
            if idleUnlessWoken() { return }
        }
    }

    /// Ends the pump unless a wake-up came while it ran (then it reads again): true when it ended.
    private func idleUnlessWoken() -> Bool {
        state.withLock { state -> Bool in
            if state.woken, !state.ended {
                state.woken = false
                return false
            }
            state.running = false
            return true
        }
    }

    /// Sends queued events while the output takes them; the rest wait for its room handler.
    ///
    /// - Important: Each event is offered and dequeued under the lock ``finish()`` takes, so an
    ///   unsubscribe waits for an offer under way: no event follows its answer, and the queue it
    ///   empties is never the one being dequeued. (`offerNotification` only queues, never blocks.)
    private func deliverQueued() {
        while state.withLock({ state -> Bool in
            guard !state.ended, let next = state.queue.first else { return false }
            var params = next.params
            params["subscriptionId"] = .string(id)
            guard connection.offerNotification(method: feed.method, params: .object(params)) else { return false }
            state.queue.removeFirst()
            state.deliveredPosition = next.position
            return true
        }) {}
        // Everything read went out: the position moves past records the feed skipped too.
        state.withLock { state in
            if state.queue.isEmpty { state.deliveredPosition = state.readPosition }
        }
    }

    /// Ends the subscription and tells the client why, after every event it was sent.
    private func drop(reason: String, message: String) {
        guard let position = finish() else { return }
        connection.logger.info("subscription \(id) (\(namespace)) dropped: \(reason): \(message)")
        guard !connection.isClosed else { return }
        let params: JSONObject = [
            "subscriptionId": .string(id), "reason": .string(reason), "message": .string(message), "state": .string(position),
        ]
        let connection = connection
        Task { await connection.deliver(method: SubscriptionHub.droppedMethod, params: .object(params)) }
    }

    /// Marks it ended, once; returns the position delivered so far (`nil` if it had ended already).
    private func finish() -> String? {
        let position = state.withLock { state -> String? in
            guard !state.ended else { return nil }
            state.ended = true
            state.queue = []
            return state.deliveredPosition
        }
        if position != nil {
            onEnd(self)
            feed.end()
        }
        return position
    }

    /// The `reason` of a drop caused by a feed error.
    static func reason(for error: any Error) -> String {
        switch error {
        case ServiceError.cannotCalculateChanges: "tooFarBehind"
        case ServiceError.notFound: "gone"
        default: "storageError"
        }
    }
}
