import Synchronization

/// A request that runs (or waits to run) as a task: what `$/cancelRequest` reaches.
final class InFlightRequest: Sendable {
    let id: RequestID
    private let state = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    init(id: RequestID) { self.id = id }

    /// Records the task running the request; cancels it at once if the client already asked to.
    func attach(_ task: Task<Void, Never>) {
        state.withLock { state in
            state.task = task
            if state.cancelled { task.cancel() }
        }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.task?.cancel()
        }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }
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

    /// Cancels every in-flight request with `id`; false when there is none.
    @discardableResult
    func cancel(_ id: RequestID) -> Bool {
        let requests = table.withLock { $0[id] ?? [] }
        requests.forEach { $0.cancel() }
        return !requests.isEmpty
    }

    func cancelAll() {
        table.withLock { $0.values.flatMap { $0 } }.forEach { $0.cancel() }
    }

    var count: Int { table.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
