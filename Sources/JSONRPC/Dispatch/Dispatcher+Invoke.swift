import Jansson

extension Dispatcher {
    /// Runs method `name` as part of the request `context` answers (an MCP `tools/call`): on the same
    /// connection and in the caller's task, so cancelling the caller cancels it, its progress goes to
    /// `progressToken`, and what it leaves for after its answer runs after the caller's answer.
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
        exactID = outer.exactID
        afterAnswerActions = followUps ?? outer.afterAnswerActions
        slot = outer.slot
    }
}

/// Follow-ups of methods run with ``Dispatcher/invoke(_:params:progressToken:within:followUps:)``,
/// held until the caller says its peer may hear of them: a stream opened by a request that answers
/// only when it ends sends its acknowledgement first, then starts what it subscribed.
public final class FollowUps: Sendable {
    let actions = AfterAnswer()

    public init() {}

    /// Runs what the invoked methods left, in order.
    public func run() async { await actions.run() }
}
