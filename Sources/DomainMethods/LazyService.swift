import JSONRPC
import Synchronization

/// One domain's service as its methods hold it: opened by the backend on the domain's first call,
/// or given ready (tests, in-process hosts). A domain's methods call ``get()`` and then the service
/// itself: no forwarding type per domain, so a new service method is written once per backend.
///
/// Opening runs on a thread of its own (it may take a file lock, migrate and seed for minutes) while
/// the callers suspend: it never holds up Swift's small task pool. A failure is answered to every
/// caller waiting, and the next call tries again: a folder created or a permission fixed later is
/// picked up without restarting the session.
///
/// ```swift
/// let feed = LazyService<any FeedService>(named: "feed") { try backend.openFeed() }
/// registry.add(.feedMethods(feed))          // opened on the first feed.* call
/// ```
public final class LazyService<Service: Sendable>: Sendable {
    private struct Waiter {
        let number: UInt64
        let continuation: CheckedContinuation<Service, any Error>
    }

    /// What a caller of ``get()`` does once it is listed (or not).
    private enum Step {
        case start, wait, cancelled, opened(Service)
    }

    private enum State {
        case closed
        case opening([Waiter])
        case opened(Service)
    }

    private let name: String
    private let open: @Sendable () throws -> Service
    private let events: ServiceOpeningEvents
    private let state: Mutex<State>
    private let waiters = Atomic<UInt64>(0)

    /// A service opened by `open` on first use; `name` says which, in a failed thread start's error.
    public init(named name: String, events: ServiceOpeningEvents = ServiceOpeningEvents(), open: @escaping @Sendable () throws -> Service) {
        self.name = name
        self.open = open
        self.events = events
        state = Mutex(.closed)
    }

    /// A service that is open already.
    public init(_ service: Service) {
        name = "ready"
        open = { service }
        events = ServiceOpeningEvents()
        state = Mutex(.opened(service))
    }

    /// The service, opening it first if this is the first call (or the last opening failed). A caller
    /// cancelled while it waits throws `CancellationError` at once; the opening goes on for the others
    /// and the next call (it may be waiting for another process that sets the database up).
    public func get() async throws -> Service {
        if case .opened(let service) = state.withLock({ $0 }) { return service }
        if let context = DomainRequest.context { events.waiting(context) }
        let number = waiters.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Under the lock: a cancel either came before (seen here) or finds the waiter listed.
                let step: Step = state.withLock { state in
                    switch state {
                    case .opened(let service):
                        return .opened(service)
                    case _ where Task.isCancelled:
                        return .cancelled
                    case .closed:
                        state = .opening([Waiter(number: number, continuation: continuation)])
                        return .start
                    case .opening(let waiting):
                        state = .opening(waiting + [Waiter(number: number, continuation: continuation)])
                        return .wait
                    }
                }
                switch step {
                case .opened(let service): continuation.resume(returning: service)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .wait: break
                case .start:
                    do {
                        try OSThread.detach(name: "opening the \(name) service") { [self] in finishOpening(Result { try open() }) }
                    } catch {
                        finishOpening(.failure(error))
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard case .opening(var waiting) = state, let index = waiting.firstIndex(where: { $0.number == number }) else { return nil }
                let waiter = waiting.remove(at: index)
                state = .opening(waiting)
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Answers every request that waited for the opening; a failure leaves it to the next call.
    private func finishOpening(_ result: Result<Service, any Error>) {
        if case .failure(let error) = result { events.finished(error) } else { events.finished(nil) }
        let waiting: [Waiter] = state.withLock { state in
            defer {
                if case .success(let service) = result { state = .opened(service) } else { state = .closed }
            }
            if case .opening(let waiting) = state { return waiting }
            return []
        }
        waiting.forEach { $0.continuation.resume(with: result) }
    }
}

/// What the owner of a ``LazyService`` hears about an opening: who waits for it (seeding reports
/// progress to them) and how it ended.
public struct ServiceOpeningEvents: Sendable {
    /// A request (its context) starts waiting for the opening.
    public var waiting: @Sendable (RequestContext) -> Void
    /// The opening ended, with the error when it failed; the requests that waited get their answer next.
    public var finished: @Sendable ((any Error)?) -> Void

    public init(waiting: @escaping @Sendable (RequestContext) -> Void = { _ in },
                finished: @escaping @Sendable ((any Error)?) -> Void = { _ in }) {
        self.waiting = waiting
        self.finished = finished
    }
}
