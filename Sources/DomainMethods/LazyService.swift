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
    private enum State {
        case closed
        case opening([CheckedContinuation<Service, any Error>])
        case opened(Service)
    }

    private let name: String
    private let open: @Sendable () throws -> Service
    private let events: ServiceOpeningEvents
    private let state: Mutex<State>

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

    /// The service, opening it first if this is the first call (or the last opening failed).
    public func get() async throws -> Service {
        if case .opened(let service) = state.withLock({ $0 }) { return service }
        if let context = DomainRequest.context { events.waiting(context) }
        return try await withCheckedThrowingContinuation { continuation in
            let startOpening: Bool = state.withLock { state in
                switch state {
                case .closed:
                    state = .opening([continuation])
                    return true
                case .opening(let waiting):
                    state = .opening(waiting + [continuation])
                case .opened(let service):
                    continuation.resume(returning: service)
                }
                return false
            }
            guard startOpening else { return }
            do {
                try OSThread.detach(name: "opening the \(name) service") { [self] in finishOpening(Result { try open() }) }
            } catch {
                finishOpening(.failure(error))
            }
        }
    }

    /// Answers every request that waited for the opening; a failure leaves it to the next call.
    private func finishOpening(_ result: Result<Service, any Error>) {
        if case .failure(let error) = result { events.finished(error) } else { events.finished(nil) }
        let waiting: [CheckedContinuation<Service, any Error>] = state.withLock { state in
            defer {
                if case .success(let service) = result { state = .opened(service) } else { state = .closed }
            }
            if case .opening(let waiting) = state { return waiting }
            return []
        }
        waiting.forEach { $0.resume(with: result) }
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
