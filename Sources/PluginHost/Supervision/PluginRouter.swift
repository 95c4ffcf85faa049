import Jansson
import JSONRPC

/// The plugins' tools as host methods: `ns.T` is tool `T` of the plugin of namespace `ns`. A plugin
/// not started yet is started by the call; listings settle first (``settle()``), waiting a bounded time
/// for plugins to start, in a task: the connection keeps answering meanwhile.
public struct PluginRouter: MethodRouter {
    let supervisor: PluginSupervisor

    public func entry(named name: String) -> MethodEntry? {
        guard let (plugin, toolName) = supervisor.plugin(owning: name) else { return nil }
        if let session = plugin.runningSession {
            guard let tool = session.tool(named: toolName) else { return nil }
            return Self.entry(name: name, tool: tool, plugin: plugin)
        }
        // Not running: the call starts it (in a task), then finds the tool.
        return .dynamic(name: name, summary: "A tool of plugin \(plugin.name).") { params, context in
            let session = try await plugin.session()
            guard let tool = session.tool(named: toolName) else { throw ResponseError.methodNotFound(name) }
            let arguments = try ToolArguments(params, tool: tool)
            return try await DeferredAnswer.value { session.relay(tool, arguments: arguments, context: context, answer: $0) }
        }
    }

    /// A tool of a running plugin: its arguments are checked on the input thread and the call relayed
    /// with no task (``PluginSession/relay(_:arguments:context:answer:)``); if the plugin stopped
    /// meanwhile, a task starts it again first. A schema with patterns or branches is checked in that
    /// task, always (it may take long, within its bound, and the input thread must go on reading).
    private static func entry(name: String, tool: PluginTool, plugin: Plugin) -> MethodEntry {
        .deferred(name: name, summary: tool.summary) { params in
            let arguments = try ToolArguments(params, tool: tool, checking: !tool.checksInTask)
            return { context, answer in
                if !tool.checksInTask, let session = plugin.runningSession {
                    return session.relay(tool, arguments: arguments, context: context, answer: answer)
                }
                let task = Task {
                    do {
                        if tool.checksInTask { try arguments.check(against: tool) }
                        try await plugin.session().relay(tool, arguments: arguments, context: context, answer: answer)
                    } catch {
                        answer.fail(error)
                    }
                }
                answer.onCancel {
                    task.cancel()
                    answer.fail(ResponseError.cancelled)
                }
            }
        }
    }

    public var entries: [MethodEntry] {
        supervisor.plugins.flatMap { plugin -> [MethodEntry] in
            guard let session = plugin.runningSession else { return [] }
            return session.tools.values.map { Self.entry(name: plugin.namespace + "." + $0.name, tool: $0, plugin: plugin) }
        }
    }

    public var namespaces: [String] { supervisor.namespaces }

    /// False while a plugin has not started yet (nor failed).
    public var isSettled: Bool { !supervisor.plugins.contains(where: \.isPending) }

    /// Starts the plugins not started yet and suspends until each runs or failed, at most the listing wait.
    public func settle() async { await supervisor.settleForListing() }

    public func methodDescription(named name: String) -> JSONValue? {
        guard let (plugin, toolName) = supervisor.plugin(owning: name), let tool = plugin.runningSession?.tools[toolName] else { return nil }
        return tool.methodDescription(method: name)
    }

    public func arrival(of name: String) -> UInt64 { supervisor.toolArrivals.arrival(of: name) }

    /// A plugin's tool answers MCP clients its own `CallToolResult` (``callTool(named:arguments:within:)``).
    public func toolOutput(named name: String) -> ToolOutput {
        guard let (plugin, toolName) = supervisor.plugin(owning: name), let tool = plugin.runningSession?.tools[toolName] else {
            return .methodResult
        }
        return .passedThrough(outputSchema: tool.outputSchema)
    }

    public func toolPresentation(named name: String) -> JSONObject {
        guard let (plugin, toolName) = supervisor.plugin(owning: name), let tool = plugin.runningSession?.tools[toolName] else { return [:] }
        return tool.presentation
    }

    public var latestArrival: UInt64 { supervisor.toolArrivals.latest }

    /// A plugin's tool called from the MCP face: the plugin's `CallToolResult` passes through as it came
    /// (images, audio, resource links and embedded resources kept; `isError` results too), where a
    /// method call answers `structuredContent` or `{content}`. Nil when `name` is no plugin's tool.
    public func callTool(named name: String, arguments: JSONValue?, within context: RequestContext) async throws -> JSONValue? {
        guard let (plugin, toolName) = supervisor.plugin(owning: name) else { return nil }
        let session = try await plugin.session()
        guard let tool = session.tool(named: toolName) else { return nil }
        let arguments = try ToolArguments(arguments, tool: tool)
        return try await DeferredAnswer.value { session.relay(tool, arguments: arguments, context: context, answer: $0, asToolResult: true) }
    }
}
