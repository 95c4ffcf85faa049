import Jansson

/// Collects methods from the host, the domains and plugins; ``freeze()`` turns it into the immutable
/// ``Dispatcher`` the connection uses.
///
/// ```swift
/// var registry = MethodRegistry()
/// registry.registerImmediate(HostPing.self) { _, _ in "pong" }
/// registry.register(InboxList.self) { params, context in try await mail.inbox(params) }
/// let dispatcher = try registry.freeze()
/// ```
public struct MethodRegistry: Sendable {
    private var entries: [MethodEntry] = []
    /// Consulted for names the frozen table lacks (``route(to:)``).
    private var router: (any MethodRouter)?

    public init() {}

    /// Registers a method whose handler runs as a task of its own, so it may take its time: on
    /// ``LongWorkExecutor`` when the method ``RPCMethod/runsLong``, wherever it is called from (a
    /// request, an MCP `tools/call`, `switchboard call`).
    public mutating func register<M: RPCMethod>(
        _ method: M.Type,
        _ handler: @escaping @Sendable (_ params: M.Params, _ context: RequestContext) async throws -> M.Result
    ) {
        add(MethodEntry(name: M.name, summary: M.summary, kind: .request, body: .task { params in
            let decoded = try ParamsDecoding.decode(M.Params.self, from: params, open: M.paramsAreOpen)
            guard M.runsLong else { return { context in try M.encode(result: try await handler(decoded, context)) } }
            return { context in
                try await withTaskExecutorPreference(LongWorkExecutor.shared) {
                    try M.encode(result: try await handler(decoded, context))
                }
            }
        }))
    }

    /// Registers a cheap method that runs on the input thread with no task hop. It must never block.
    public mutating func registerImmediate<M: RPCMethod>(
        _ method: M.Type,
        _ handler: @escaping @Sendable (_ params: M.Params, _ context: RequestContext) throws -> M.Result
    ) {
        add(MethodEntry(name: M.name, summary: M.summary, kind: .request, body: .immediate { params, context in
            let decoded = try ParamsDecoding.decode(M.Params.self, from: params, open: M.paramsAreOpen)
            return try M.encode(result: try handler(decoded, context))
        }))
    }

    /// Registers a listing of the method table (`host.methods`, `rpc.discover`): answered on the input
    /// thread when the router has nothing to settle, else from a task once it has (a bounded wait for
    /// plugins to start) while the connection keeps answering other requests.
    public mutating func registerListing<M: RPCMethod>(
        _ method: M.Type,
        _ handler: @escaping @Sendable (_ params: M.Params, _ context: RequestContext, _ entries: [MethodEntry]) throws -> M.Result
    ) {
        add(.deferred(name: M.name, summary: M.summary) { params in
            let decoded = try ParamsDecoding.decode(M.Params.self, from: params, open: M.paramsAreOpen)
            return { context, answer in
                let dispatcher = context.connection.dispatcher
                let respond: @Sendable () -> Void = {
                    do {
                        answer.succeed(try M.encode(result: try handler(decoded, context, dispatcher.entries)))
                    } catch {
                        answer.fail(error)
                    }
                }
                guard let router = dispatcher.router, !router.isSettled else { return respond() }
                Task {
                    await router.settle()
                    respond()
                }
            }
        })
    }

    /// Registers a notification handler; it runs on the input thread, so it must be quick.
    public mutating func registerNotification<N: RPCNotification>(
        _ notification: N.Type,
        _ handler: @escaping @Sendable (_ params: N.Params, _ context: RequestContext) throws -> Void
    ) {
        add(MethodEntry(name: N.name, summary: N.summary, kind: .notification, body: .immediate { params, context in
            try handler(try ParamsDecoding.decode(N.Params.self, from: params, open: N.Params.self is any OpenParams.Type), context)
            return JanssonValue.null
        }))
    }

    /// Registers a method built elsewhere, e.g. one a plugin announced.
    public mutating func add(_ entry: MethodEntry) {
        entries.append(entry)
    }

    /// Adds every method of `group` (a domain's set of methods).
    public mutating func add(_ group: MethodRegistry) {
        entries.append(contentsOf: group.entries)
    }

    /// The names of the methods registered so far (the router's aside), in order.
    public var names: [String] { entries.map(\.name) }

    /// The immutable dispatcher; fails when two methods share a name.
    public func freeze() throws(RegistryError) -> Dispatcher {
        var table: [String: MethodEntry] = [:]
        table.reserveCapacity(entries.count)
        for entry in entries {
            guard table[entry.name] == nil else { throw RegistryError.duplicateMethod(entry.name) }
            guard !entry.name.isEmpty else { throw RegistryError.invalidName(entry.name) }
            table[entry.name] = entry
        }
        return Dispatcher(table: table, order: entries.map(\.name), router: router)
    }

    /// Sends names no registered method has to `router` (plugins' tools): the table stays frozen.
    public mutating func route(to router: any MethodRouter) {
        self.router = router
    }
}

public enum RegistryError: Error, Equatable, CustomStringConvertible {
    case duplicateMethod(String)
    case invalidName(String)

    public var description: String {
        switch self {
        case .duplicateMethod(let name): "method \(name) is registered twice"
        case .invalidName(let name): "\"\(name)\" is not a method name"
        }
    }
}

/// The frozen method table: looks methods up by name, and lists them for introspection.
public struct Dispatcher: Sendable {
    private let table: [String: MethodEntry]
    private let order: [String]
    /// Methods beyond the table, looked up at call time; `nil` for most connections.
    public let router: (any MethodRouter)?

    init(table: [String: MethodEntry], order: [String], router: (any MethodRouter)? = nil) {
        self.table = table
        self.order = order
        self.router = router
    }

    public func entry(named name: String) -> MethodEntry? { table[name] ?? router?.entry(named: name) }

    /// Every method, the router's included, sorted by name.
    public var entries: [MethodEntry] {
        let own = order.sorted().compactMap { table[$0] }
        guard let routed = router?.entries, !routed.isEmpty else { return own }
        return (own + routed.filter { table[$0.name] == nil }).sorted { $0.name < $1.name }
    }

    /// The namespaces of the methods named `namespace.verb`, and the router's, sorted (`initialize`,
    /// `exit` and other undotted lifecycle names belong to none).
    public var namespaces: [String] {
        let own = table.values.filter { $0.name.contains(".") }.map(\.namespace)
        return Array(Set(own + (router?.namespaces ?? []))).sorted()
    }
}
