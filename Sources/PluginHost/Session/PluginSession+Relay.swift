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
        let params = JanssonValue.object()
        params.set("name", taking: JanssonValue.makeString(tool.name))
        arguments.set(as: "arguments", of: params)
        let token: String? = context.progressToken == nil ? nil : "p\(nextToken.wrappingAdd(1, ordering: .relaxed).oldValue)"
        if let token {
            state.withLock { $0.progress[token] = context }
            params.set("_meta", (["progressToken": .string(token)] as JSONValue).makeJansson())
        }
        let deadline = CallDeadline()
        let id = connection.startRequest(method: "tools/call", params: params) { [self] outcome in
            deadline.disarm()
            if let token { _ = state.withLock { $0.progress.removeValue(forKey: token) } }
            finish(outcome, tool: tool.name, answer: answer, asToolResult: asToolResult)
        }
        guard let id else {
            if let token { _ = state.withLock { $0.progress.removeValue(forKey: token) } }
            return answer.fail(state.withLock { $0.endError } ?? ResponseError.internalError("the plugin's connection is closed"))
        }
        armTimeout(deadline, forRequest: id)
        let connection = connection
        answer.onCancel {
            connection.abandonRequest(id, with: .cancelled)
            connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "cancelled by the client"])
        }
    }

    /// Arms `deadline` for request `id` with the plugin's `timeoutMs`: when it fires first, the request
    /// fails with `reason: "timeout"` and the plugin is sent `notifications/cancelled`.
    func armTimeout(_ deadline: CallDeadline, forRequest id: Int64) {
        let (connection, plugin, timeout) = (connection, name, manifest.timeoutMilliseconds)
        deadline.arm(in: timeout) {
            connection.abandonRequest(id, with: PluginError.timeout(plugin, milliseconds: timeout))
            connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "timeout"])
        }
    }

    /// Turns the plugin's answer into the client's: `structuredContent` when present, else `{content}`;
    /// `isError: true` is a tool error; the plugin's own errors name it. `asToolResult` keeps a result
    /// object as the plugin sent it.
    private func finish(_ outcome: Result<JSONView, ResponseError>, tool: String, answer: DeferredAnswer, asToolResult: Bool) {
        switch outcome {
        case .failure(let error):
            answer.fail(error.data?["plugin"] != nil || error.code == .requestCancelled ? error : PluginError.fromPlugin(name, error))
        case .success(let result) where asToolResult && result.kind == .object:
            answer.succeed(JanssonValue(retaining: result.pointer))
        case .success(let result):
            if result["isError"]?.bool == true {
                answer.fail(PluginError.toolError(name, tool: tool, content: result["content"].map(JSONValue.init) ?? []))
            } else if let structured = result["structuredContent"] {
                answer.succeed(JanssonValue(retaining: structured.pointer))
            } else {
                let content = JanssonValue.object()
                content.set("content", result["content"].map { JanssonValue(retaining: $0.pointer) } ?? JanssonValue.array())
                answer.succeed(content)
            }
        }
    }
}

/// The time-out of one relayed call: armed once its request is out, disarmed by its answer, whichever
/// of the two comes first (a fast plugin answers before the time-out is armed).
final class CallDeadline: Sendable {
    private let state = Mutex<(key: Int?, done: Bool)>((nil, false))

    func arm(in milliseconds: Int, _ action: @escaping @Sendable () -> Void) {
        let key = DeadlineWatch.shared.schedule(in: milliseconds, action)
        let answered = state.withLock { state in
            if !state.done { state.key = key }
            return state.done
        }
        if answered { DeadlineWatch.shared.cancel(key) }
    }

    func disarm() {
        let key = state.withLock { state in
            state.done = true
            defer { state.key = nil }
            return state.key
        }
        if let key { DeadlineWatch.shared.cancel(key) }
    }
}
