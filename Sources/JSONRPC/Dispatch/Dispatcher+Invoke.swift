import Jansson

extension Dispatcher {
    /// Runs `method` as part of the request `context` answers, as ``invoke(_:params:progressToken:within:followUps:)``
    /// does: the one way code in this process calls a method. Named by its type, so a renamed method
    /// is a compile error here; the call keeps the caller's connection and session (account,
    /// subscriptions, limits), never a fresh one.
    public func invoke<M: RPCMethod>(_ method: M.Type, params: JSONValue?, within context: RequestContext,
                                     followUps: FollowUps? = nil) async throws -> JSONValue {
        try await invoke(M.name, params: params, progressToken: nil, within: context, followUps: followUps)
    }

    /// Runs method `name`, a name a peer gave (an MCP `tools/call`'s tool), as part of the request
    /// `context` answers: on the same connection and in the caller's task, so cancelling the caller
    /// cancels it, its progress goes to `progressToken`, and what it leaves for after its answer runs
    /// after the caller's answer.
    ///
    /// Throws what the method throws (``ResponseError``, ``JSONFieldError``, …), and `-32601` when no
    /// method has that name. With `followUps`, what the method leaves for after its answer waits
    /// there instead, until the caller runs it (a request that answers only when it ends).
    public func invoke(_ name: String, params: JSONValue?, progressToken: JSONValue?, within context: RequestContext,
                       followUps: FollowUps? = nil) async throws -> JSONValue {
        guard let entry = entry(named: name), entry.kind == .request else { throw ResponseError.methodNotFound(name) }
        let inner = RequestContext(invoking: name, progressToken: progressToken, within: context, followUps: followUps?.actions)
        let document = params?.makeJansson()
        let result: JanssonValue
        switch entry.body {
        case .immediate(let run):
            result = try run(document?.view, inner)
        case .task(let prepare):
            let work = try prepare(document?.view)
            result = try await work(inner)
        case .deferred(let prepare):
            let work = try prepare(document?.view)
            return try await DeferredAnswer.value { work(inner, $0) }
        }
        return JSONValue(result.view)
    }
}

extension RequestContext {
    /// The context of a method run inside another request: its id, connection and follow-ups.
    init(invoking method: String, progressToken: JSONValue?, within outer: RequestContext, followUps: AfterAnswer?) {
        id = outer.id
        self.method = method
        self.progressToken = progressToken
        connection = outer.connection
        session = outer.session
        exactID = outer.exactID
        afterAnswerActions = followUps ?? outer.afterAnswerActions
        slot = outer.slot
    }
}

extension RequestContext {
    /// This request's context with what methods run in it leave for after their answer held in
    /// `followUps` until the caller runs them (a stream that acknowledges first, then starts what it subscribed).
    public func holding(_ followUps: FollowUps) -> RequestContext {
        RequestContext(invoking: method, progressToken: progressToken, within: self, followUps: followUps.actions)
    }

    /// The same request acting for `session` (see ``MethodEntry/acting(for:)``).
    init(_ context: RequestContext, session: ConnectionSession) {
        id = context.id
        method = context.method
        progressToken = context.progressToken
        connection = context.connection
        self.session = session
        exactID = context.exactID
        afterAnswerActions = context.afterAnswerActions
        slot = context.slot
    }
}

/// Follow-ups of methods run with ``Dispatcher/invoke(_:params:progressToken:within:followUps:)``,
/// held until the caller says its peer may hear of them: a stream opened by a request that answers
/// only when it ends sends its acknowledgement first, then starts what it subscribed.
public final class FollowUps: Sendable {
    let actions = AfterAnswer()

    public init() {}

    /// Runs what the invoked methods left, in order (what waits for an answer to go out first).
    public func run() async {
        actions.answerGoesOut()
        await actions.run()
    }
}
