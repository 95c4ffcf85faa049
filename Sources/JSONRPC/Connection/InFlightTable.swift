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
        /// Its answer was claimed (``claimAnswer()``): by its task, or by the drain that gave up on it.
        var answerClaimed = false
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

    /// Cancels the request: its task if it runs, or the whole request if it still waits for a slot.
    /// True when this call cancelled it while it waited: the caller answers it. Only one caller gets
    /// true, so a client's cancel and the drain's never both answer it.
    @discardableResult
    func cancel() -> Bool {
        let (running, answersIt) = state.withLock { state in
            state.cancelled = true
            let answersIt = !state.started && !state.answeredEarly
            if answersIt { state.answeredEarly = true }
            return (state.cancelRunning, answersIt)
        }
        running?()
        return answersIt
    }

    /// True for the first caller only: the request's own outcome, or the drain at exit that answers
    /// `-32800` for a request still running after its cancel (``Connection/abandonRunning(heldWorkDeadline:)``). The
    /// other drops its answer, so a request is answered once.
    func claimAnswer() -> Bool {
        state.withLock { state in
            defer { state.answerClaimed = true }
            return !state.answerClaimed
        }
    }
}

/// The requests of one connection that are running or waiting for a slot, by id.
///
/// One request per id is the rule (a client may reuse an id, rarely): it is kept alone, with no array
/// made and freed per request; later ones with the same id wait in `more`.
final class InFlightTable: Sendable {
    private struct Requests {
        var first: [RequestID: InFlightRequest] = [:]
        var more: [RequestID: [InFlightRequest]] = [:]

        func all(_ id: RequestID) -> [InFlightRequest] {
            guard let request = first[id] else { return [] }
            return [request] + (more[id] ?? [])
        }
    }

    private let table = Mutex(Requests())

    func insert(_ request: InFlightRequest) {
        table.withLock { table in
            if table.first[request.id] == nil {
                table.first[request.id] = request
            } else {
                table.more[request.id, default: []].append(request)
            }
        }
    }

    func remove(_ request: InFlightRequest) {
        table.withLock { table in
            let id = request.id
            if table.first[id] === request {
                // The next one with this id, if any, takes its place.
                guard var others = table.more[id], !others.isEmpty else {
                    table.first[id] = nil
                    return
                }
                table.first[id] = others.removeFirst()
                table.more[id] = others.isEmpty ? nil : others
            } else if var others = table.more[id] {
                others.removeAll { $0 === request }
                table.more[id] = others.isEmpty ? nil : others
            }
        }
    }

    /// Cancels every in-flight request with `id`; returns how many there were, and those this call
    /// cancelled while they waited for a slot, which the caller answers.
    func cancel(_ id: RequestID) -> (found: Int, waiting: [InFlightRequest]) {
        let requests = table.withLock { $0.all(id) }
        return (requests.count, requests.filter { $0.cancel() })
    }

    /// Cancels everything and returns the requests this call cancelled while they waited for a
    /// slot, which the caller answers.
    func cancelAll() -> [InFlightRequest] {
        let requests = table.withLock { Array($0.first.values) + $0.more.values.flatMap { $0 } }
        return requests.filter { $0.cancel() }
    }

    /// Empties the table and returns what it held.
    func removeAll() -> [InFlightRequest] {
        table.withLock { table in
            defer { table = Requests() }
            return Array(table.first.values) + table.more.values.flatMap { $0 }
        }
    }

    var count: Int { table.withLock { $0.first.count + $0.more.values.reduce(0) { $0 + $1.count } } }
}
