import Jansson

extension Dispatcher {
    /// Runs method `name` as part of the request `context` answers (an MCP `tools/call`): on the same
    /// connection and in the caller's task, so cancelling the caller cancels it, its progress goes to
    /// `progressToken`, and what it leaves for after its answer runs after the caller's answer.
    ///
    /// Throws what the method throws (``ResponseError``, ``JSONFieldError``, …), and `-32601` when no
    /// method has that name.
    public func invoke(_ name: String, params: JSONValue?, progressToken: JSONValue?, within context: RequestContext) async throws -> JSONValue {
        guard let entry = entry(named: name), entry.kind == .request else { throw ResponseError.methodNotFound(name) }
        let inner = RequestContext(invoking: name, progressToken: progressToken, within: context)
        let document = params?.makeJansson()
        let result: JanssonValue
        switch entry.body {
        case .immediate(let run):
            result = try run(document?.view, inner)
        case .task(let prepare):
            let work = try prepare(document?.view)
            result = try await work(inner)
        }
        return JSONValue(result.view)
    }
}

extension RequestContext {
    /// The context of a method run inside another request: its id, connection and follow-ups.
    init(invoking method: String, progressToken: JSONValue?, within outer: RequestContext) {
        id = outer.id
        self.method = method
        self.progressToken = progressToken
        connection = outer.connection
        exactID = outer.exactID
        afterAnswerActions = outer.afterAnswerActions
    }
}
