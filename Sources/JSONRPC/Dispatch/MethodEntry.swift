import Jansson

/// A registered method with its handler, its params already typed away: what the dispatcher runs.
public struct MethodEntry: Sendable {
    public enum Kind: String, Sendable {
        /// Answers a request.
        case request
        /// Takes a notification and never answers.
        case notification
    }

    /// How the handler runs.
    enum Body: Sendable {
        /// Runs at once on the input thread, with no task hop: for cheap methods that never block.
        case immediate(@Sendable (_ params: JSONView?, _ context: RequestContext) throws -> JanssonValue)
        /// Decodes params on the input thread, then runs `work` as a task of its own.
        case task(@Sendable (_ params: JSONView?) throws -> PendingWork)
        /// Checks params on the input thread, then starts `work` there, which answers later through a
        /// ``DeferredAnswer`` from whichever thread its outcome arrives on; no task.
        case deferred(@Sendable (_ params: JSONView?) throws -> DeferredWork)
    }

    /// The part of a task-run method that runs in its task: it returns the encoded result.
    typealias PendingWork = @Sendable (_ context: RequestContext) async throws -> JanssonValue

    /// The part of a deferred method that runs once the request has its slot: it starts what will
    /// answer and returns at once, never blocking.
    public typealias DeferredWork = @Sendable (_ context: RequestContext, _ answer: DeferredAnswer) -> Void

    public let name: String
    public let summary: String
    public let kind: Kind
    let body: Body

    /// The namespace: what precedes the last `.` of the name (`inbox` for `inbox.list`), or the name.
    public var namespace: String {
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    /// True when the handler runs as a task of its own.
    var runsAsTask: Bool {
        if case .task = body { true } else { false }
    }

    /// True when the method runs on the input thread without a task.
    public var isImmediate: Bool {
        if case .immediate = body { true } else { false }
    }
}

extension MethodEntry {
    /// A method whose params and result are free-form JSON, for plugins and proxies.
    public static func dynamic(
        name: String, summary: String,
        handler: @escaping @Sendable (_ params: JSONValue?, _ context: RequestContext) async throws -> JSONValue
    ) -> MethodEntry {
        MethodEntry(name: name, summary: summary, kind: .request, body: .task { params in
            let value = params.map(JSONValue.init)
            return { context in try await handler(value, context).makeJansson() }
        })
    }
}

extension MethodEntry {
    /// A method that answers later, from any thread, with no task: `prepare` checks the params on the
    /// input thread and returns the work, which starts what will answer (a request to a plugin) and
    /// never blocks. The request holds its in-flight slot until answered.
    public static func deferred(
        name: String, summary: String, prepare: @escaping @Sendable (_ params: JSONView?) throws -> DeferredWork
    ) -> MethodEntry {
        MethodEntry(name: name, summary: summary, kind: .request, body: .deferred(prepare))
    }
}

extension MethodEntry {
    /// The same method, acting for the session `session()` gives when it runs (nil: the connection's
    /// own): a plugin's callback into the host runs in the plugin connection's slots and answers there,
    /// but for the client's account, as the client's own call would.
    public func acting(for session: @escaping @Sendable () -> ConnectionSession?) -> MethodEntry {
        let acting: @Sendable (RequestContext) -> RequestContext = { context in
            session().map { RequestContext(context, session: $0) } ?? context
        }
        let body: Body = switch self.body {
        case .immediate(let run):
            .immediate { params, context in try run(params, acting(context)) }
        case .task(let prepare):
            .task { params in
                let work = try prepare(params)
                return { context in try await work(acting(context)) }
            }
        case .deferred(let prepare):
            .deferred { params in
                let work = try prepare(params)
                return { context, answer in work(acting(context), answer) }
            }
        }
        return MethodEntry(name: name, summary: summary, kind: kind, body: body)
    }
}
