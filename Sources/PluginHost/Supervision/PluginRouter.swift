import Jansson
import JSONRPC

/// The plugins' tools as host methods: `ns.T` is tool `T` of the plugin of namespace `ns`. A plugin
/// not started yet is started by the call; listings wait (bounded) for plugins to start.
public struct PluginRouter: MethodRouter {
    let supervisor: PluginSupervisor

    public func entry(named name: String) -> MethodEntry? {
        guard let dot = name.firstIndex(of: "."), let plugin = supervisor.plugin(namespace: String(name[..<dot])) else { return nil }
        let toolName = String(name[name.index(after: dot)...])
        if let session = plugin.runningSession {
            guard let tool = session.tools[toolName] else { return nil }
            return Self.entry(name: name, tool: tool, plugin: plugin)
        }
        // Not running: the call starts it, then finds the tool.
        return .dynamic(name: name, summary: "A tool of plugin \(plugin.name).") { params, context in
            let session = try await plugin.session()
            guard let tool = session.tools[toolName] else { throw ResponseError.methodNotFound(name) }
            return try await session.callTool(tool, arguments: params, context: context)
        }
    }

    private static func entry(name: String, tool: PluginTool, plugin: Plugin) -> MethodEntry {
        .dynamic(name: name, summary: tool.summary) { params, context in
            try await plugin.session().callTool(tool, arguments: params, context: context)
        }
    }

    public var entries: [MethodEntry] {
        supervisor.settleForListing()
        return supervisor.plugins.flatMap { plugin -> [MethodEntry] in
            guard let session = plugin.runningSession else { return [] }
            return session.tools.values.map { Self.entry(name: plugin.namespace + "." + $0.name, tool: $0, plugin: plugin) }
        }
    }

    public var namespaces: [String] { supervisor.namespaces }

    public func methodDescription(named name: String) -> JSONValue? {
        guard let dot = name.firstIndex(of: "."), let plugin = supervisor.plugin(namespace: String(name[..<dot])),
              let tool = plugin.runningSession?.tools[String(name[name.index(after: dot)...])] else { return nil }
        return tool.methodDescription(method: name)
    }
}
