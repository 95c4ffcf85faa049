import Synchronization

/// Tells whoever listens that stored data may have changed: the wake-up behind every subscription.
///
/// A signal carries no payload. Listeners re-read what they follow from the change log (a state
/// string, `*.changes`), so a wake-up that coalesces several writes, or one that fires for a write
/// a listener does not care about, loses nothing. Services post after each committed write; on
/// SQLite a file watcher also posts when another process writes the same database.
public final class ChangeSignal: Sendable {
    /// Names one listener, to stop it.
    public struct Listener: Hashable, Sendable {
        let id: UInt64
    }

    /// An array, not a dictionary by id: few listen at once, and a dictionary's first use looks its
    /// key's `Hashable` conformance up at run time, a scan of the whole static binary at every start.
    private struct Listeners {
        var nextID: UInt64 = 0
        var handlers: [(id: UInt64, handler: @Sendable () -> Void)] = []
    }

    private let listeners = Mutex(Listeners())

    public init() {}

    /// Wakes every listener. Handlers run on the caller's thread, so they must only hand off work
    /// (resume a task, signal a condition), never block.
    public func post() {
        let handlers = listeners.withLock { $0.handlers }
        for listener in handlers { listener.handler() }
    }

    /// Calls `handler` after every ``post()`` from now on, until ``stop(_:)``.
    @discardableResult
    public func listen(_ handler: @escaping @Sendable () -> Void) -> Listener {
        listeners.withLock { listeners in
            listeners.nextID += 1
            listeners.handlers.append((listeners.nextID, handler))
            return Listener(id: listeners.nextID)
        }
    }

    public func stop(_ listener: Listener) {
        listeners.withLock { $0.handlers.removeAll { $0.id == listener.id } }
    }

    /// How many listen now.
    public var listenerCount: Int { listeners.withLock { $0.handlers.count } }
}
