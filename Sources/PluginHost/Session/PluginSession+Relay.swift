import Jansson
import JSONRPC
import Synchronization

/// Tool calls relayed with no task and no thread hop: the thread that has the client's request (the
/// input thread) writes it to the plugin's stdin, and the plugin's reader thread, which reads the
/// answer, writes the client's answer. The plugin's result is passed on as the jansson value it was
/// parsed into. Time-outs, cancellation, crashes, id remapping and progress work as for every request
/// to the plugin.
extension PluginSession {
    /// Calls `tool` for a client's request and answers it through `answer`; returns at once. With
    /// `asToolResult`, the answer is the plugin's `CallToolResult` itself (for the MCP face).
    func relay(_ tool: PluginTool, arguments: ToolArguments, context: RequestContext, answer: DeferredAnswer, asToolResult: Bool = false) {
        if answer.isCancelled { return answer.fail(ResponseError.cancelled) }
        let token: String? = context.progressToken == nil ? nil : "p\(nextToken.wrappingAdd(1, ordering: .relaxed).oldValue)"
        var meta: JanssonValue?
        if let token {
            state.withLock { $0.progress[token] = context }
            meta = (["progressToken": .string(token)] as JSONValue).makeJansson()
        }
        let deadline = callDeadline()
        // `{"name":…,"arguments":…,"_meta":…}` written from its parts, the arguments as the client's
        // request had them: no params object is built per call.
        let id = withExtendedLifetime(meta) {
            arguments.withView { arguments in
                var members: [(key: String, value: JSONView)] = [("name", tool.nameValue.view), ("arguments", arguments)]
                if let meta { members.append(("_meta", meta.view)) }
                return self.connection.startRequest(method: "tools/call", members: members, deadline: deadline) { [self] outcome in
                    if let token { _ = state.withLock { $0.progress.removeValue(forKey: token) } }
                    finish(outcome, tool: tool, answer: answer, asToolResult: asToolResult)
                }
            }
        }
        guard let id else {
            if let token { _ = state.withLock { $0.progress.removeValue(forKey: token) } }
            return answer.fail(state.withLock { $0.endError } ?? ResponseError.internalError("the plugin's connection is closed"))
        }
        armTimeouts(at: deadline)
        let connection = connection
        let plugin = name
        answer.onCancel {
            // Not a plain -32800: the call reached the plugin, which may have done part of it.
            connection.abandonRequest(id, with: PluginError.cancelled(plugin))
            connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "cancelled by the client"])
        }
    }

    /// When a request sent now times out (the plugin's `timeoutMs`), on ``monotonicNanoseconds()``'s clock.
    func callDeadline() -> UInt64 {
        monotonicNanoseconds() + UInt64(max(0, manifest.timeoutMilliseconds)) * 1_000_000
    }

    /// Arms the run's one timer for the time-outs of its calls at `deadline`, unless it is armed: the
    /// calls share the plugin's `timeoutMs`, so a later call's deadline is never earlier, and the timer
    /// arms itself again for the earliest one left (``expireCalls()``). A call costs no timer of its own.
    func armTimeouts(at deadline: UInt64) {
        guard timeoutsArmed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else { return }
        let now = monotonicNanoseconds()
        let milliseconds = deadline > now ? Int((deadline - now + 999_999) / 1_000_000) : 0
        // Weakly: a run that ended (its calls failed at once) is not kept until the timer fires.
        _ = DeadlineWatch.shared.schedule(in: milliseconds) { [weak self] in self?.expireCalls() }
    }

    /// Fails the calls whose time-out passed with `reason: "timeout"` (and sends the plugin
    /// `notifications/cancelled` for each), then arms the timer for the earliest one left.
    ///
    /// - Important: the flag is cleared before the calls are looked at: a call started meanwhile is
    ///   either seen here or arms the timer itself.
    private func expireCalls() {
        timeoutsArmed.store(false, ordering: .sequentiallyConsistent)
        let (expired, next) = connection.expiredRequests(at: monotonicNanoseconds())
        let timeout = manifest.timeoutMilliseconds
        for id in expired {
            connection.abandonRequest(id, with: PluginError.timeout(name, milliseconds: timeout))
            connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "timeout"])
        }
        if let next { armTimeouts(at: next) }
    }

    /// Turns the plugin's answer into the client's: `structuredContent` when present, else `{content}`;
    /// `isError: true` is a tool error. `asToolResult` keeps the result as the plugin sent it. A result
    /// that is no `CallToolResult`, or whose `structuredContent` breaks the tool's own `outputSchema`,
    /// fails the call (``malformed(_:_:)``).
    private func finish(_ outcome: Result<JSONView, ResponseError>, tool: PluginTool, answer: DeferredAnswer, asToolResult: Bool) {
        switch outcome {
        case .failure(let error):
            // The plugin's own error answers were made its own as they arrived (``PluginError/fromPlugin(_:_:)``).
            answer.fail(error)
        case .success(let result):
            if let problem = AnswerShape.toolResultProblem(result) { return answer.fail(malformed("tools/call", problem)) }
            if result["isError"]?.bool != true, let structured = AnswerShape.present(result, "structuredContent"),
               let problem = tool.outputProblem(structured) {
                return answer.fail(malformed("tools/call", "its structuredContent does not match its outputSchema: \(JSONFieldError.excerpt(problem))"))
            }
            let tool = tool.name
            if asToolResult { return answer.succeed(AnswerShape.withoutNullOptionals(result)) }
            let blocks = AnswerShape.present(result, "content")
            if result["isError"]?.bool == true {
                answer.fail(PluginError.toolError(name, tool: tool, content: blocks.map(JSONValue.init) ?? []))
            } else if let structured = AnswerShape.present(result, "structuredContent") {
                answer.succeed(JanssonValue(retaining: structured.pointer))
            } else {
                let content = JanssonValue.object()
                content.set("content", blocks.map { JanssonValue(retaining: $0.pointer) } ?? JanssonValue.array())
                answer.succeed(content)
            }
        }
    }
}
