import Jansson
import Synchronization

/// What subscriptions need from a connection: notifications that are either accepted whole or
/// refused (never silently dropped), a call when the output has room again, and a call when the
/// connection ends.
extension Connection {
    /// Queues a notification unless the output is full; false when it was refused. Unlike
    /// ``notify(method:params:)`` nothing is counted as dropped: the caller keeps the message and
    /// tries again once ``onOutputRoom(_:)`` calls it.
    public func offerNotification(method: String, params: JSONValue) -> Bool {
        guard let (method, params) = worded(method, params) else { return true }
        let message = OutgoingMessage.notification(method: method, params: params?.makeJansson())
        if holdUntilFramed(message) { return true }
        return sink.offer(framed(message))
    }

    /// Sends a notification that must not be lost; like an answer it waits, suspended, while the output
    /// is full.
    public func deliver(method: String, params: JSONValue) async {
        guard let (method, params) = worded(method, params) else { return }
        await send(OutgoingMessage.notification(method: method, params: params?.makeJansson()))
    }

    /// Calls `handler` each time the output has room again after it refused a message, until the
    /// returned token is passed to ``stopListening(_:)``.
    @discardableResult
    public func onOutputRoom(_ handler: @escaping @Sendable () -> Void) -> ConnectionListener {
        lifetime.withLock { $0.add(room: handler) }
    }

    public func stopListening(_ listener: ConnectionListener) {
        lifetime.withLock { $0.remove(listener) }
    }

    /// Calls `handler` once when the connection ends (its input ended); at once if it has ended.
    public func whenClosed(_ handler: @escaping @Sendable () -> Void) {
        let closed = lifetime.withLock { lifetime in
            if lifetime.closed { return true }
            lifetime.add(close: handler)
            return false
        }
        if closed { handler() }
    }

    /// True once the input ended.
    public var isClosed: Bool { lifetime.withLock { $0.closed } }

    /// Ends the connection for everything that waits on it: runs the close handlers, once.
    func close() {
        let handlers = lifetime.withLock { $0.close() }
        for handler in handlers { handler() }
    }

    /// The sink has room again: tell the peer what it missed, then whoever waits for room.
    func outputHasRoom() {
        reportDroppedNotifications()
        for handler in lifetime.withLock({ Array($0.room.values) }) { handler() }
    }
}

/// Names a handler given to ``Connection/onOutputRoom(_:)``.
public struct ConnectionListener: Hashable, Sendable {
    let id: UInt64
}

/// Handlers waiting on the connection's output and end.
struct ConnectionLifetime: Sendable {
    private var nextID: UInt64 = 0
    private(set) var room: [UInt64: @Sendable () -> Void] = [:]
    private var closeHandlers: [@Sendable () -> Void] = []
    private(set) var closed = false

    mutating func add(room handler: @escaping @Sendable () -> Void) -> ConnectionListener {
        nextID += 1
        room[nextID] = handler
        return ConnectionListener(id: nextID)
    }

    mutating func add(close handler: @escaping @Sendable () -> Void) {
        closeHandlers.append(handler)
    }

    mutating func remove(_ listener: ConnectionListener) {
        room[listener.id] = nil
    }

    /// Marks the connection closed and hands out the close handlers (none the second time).
    mutating func close() -> [@Sendable () -> Void] {
        guard !closed else { return [] }
        closed = true
        room = [:]
        defer { closeHandlers = [] }
        return closeHandlers
    }
}
