import Synchronization

/// A request that runs (or waits to run) as a task or a deferred answer: what `$/cancelRequest` reaches.
final class InFlightRequest: Sendable {
    private struct State {
        /// Cancels the running request: its task, or its deferred answer.
        var cancelRunning: (@Sendable () -> Void)?
        var cancelled = false
        /// The request got its slot and its task is (about to be) running.
        var started = false
        /// Cancelled while it waited for a slot, and answered then.
        var answeredEarly = false
    }

    let id: RequestID
    /// Where the answer goes, for a request answered before it started.
    let context: RequestContext
    let target: ReplyTarget
    private let state = Mutex(State())

    init(context: RequestContext, target: ReplyTarget) {
        self.id = context.id ?? .null
        self.context = context
        self.target = target
    }

    /// Records how to cancel the running request; cancels it at once if the client already asked to.
    func attach(cancel: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            state.cancelRunning = cancel
            return state.cancelled
        }
        if now { cancel() }
    }

    /// Forgets how to cancel the request once it is answered: a deferred answer's hook holds the
    /// answer, whose delivery holds this request (kept, the pair would never be freed).
    func detach() {
        state.withLock { $0.cancelRunning = nil }
    }

    /// Called when the request gets its slot; false if it was cancelled (and answered) while waiting.
    func markStarted() -> Bool {
        state.withLock { state in
            if state.answeredEarly { return false }
            state.started = true
            return true
        }
    }

    /// Cancels the request: its task if it runs, or the whole request if it still waits for a slot
    /// (``answeredBeforeStart`` then tells the caller to answer it).
    func cancel() {
        let running = state.withLock { state in
            state.cancelled = true
            if !state.started { state.answeredEarly = true }
            return state.cancelRunning
        }
        running?()
    }

    var answeredBeforeStart: Bool { state.withLock { $0.answeredEarly } }
}

/// The requests of one connection that are running or waiting for a slot, by id.
final class InFlightTable: Sendable {
    private let table = Mutex<[RequestID: [InFlightRequest]]>([:])

    func insert(_ request: InFlightRequest) {
        table.withLock { $0[request.id, default: []].append(request) }
    }

    func remove(_ request: InFlightRequest) {
        table.withLock { table in
            table[request.id]?.removeAll { $0 === request }
            if table[request.id]?.isEmpty == true { table[request.id] = nil }
        }
    }

    /// Cancels every in-flight request with `id` and returns them.
    func cancel(_ id: RequestID) -> [InFlightRequest] {
        let requests = table.withLock { $0[id] ?? [] }
        requests.forEach { $0.cancel() }
        return requests
    }

    /// Cancels everything and returns the requests that were still waiting for a slot.
    func cancelAll() -> [InFlightRequest] {
        let requests = table.withLock { $0.values.flatMap { $0 } }
        requests.forEach { $0.cancel() }
        return requests.filter(\.answeredBeforeStart)
    }

    var count: Int { table.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
