import Jansson
import JSONRPC

/// `plugins.list` → every configured plugin, its state and what it offers; waits (bounded) for the
/// plugins that have not started yet.
public enum PluginsList: RPCMethod {
    public static let name = "plugins.list"
    public static let summary = "Lists the plugins: state, pid, restarts, last error, methods and resources."

    public struct Result: Encodable, Sendable {
        public var items: [PluginStatus]
    }
}

/// `plugins.restart {name}` → stops the plugin, forgets its crashes, starts it again, and answers its
/// `plugins.list` item.
public enum PluginsRestart: RPCMethod {
    public static let name = "plugins.restart"
    public static let summary = "Restarts a plugin, also one that failed; answers its plugins.list item."

    public struct Params: Decodable, Sendable {
        public var name: String
    }

    public typealias Result = PluginStatus
}

extension MethodRegistry {
    /// `plugins.list` and `plugins.restart`.
    public static func pluginMethods(_ supervisor: PluginSupervisor) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.register(PluginsList.self) { _, context in
            supervisor.addClient(context.connection)
            await supervisor.settleForListing()
            return PluginsList.Result(items: supervisor.plugins.map(\.status))
        }
        registry.register(PluginsRestart.self) { params, context in
            supervisor.addClient(context.connection)
            guard let plugin = supervisor.plugin(named: params.name) else {
                throw ResponseError.invalidParams(JSONFieldError(field: "name", expected: "the name of a configured plugin",
                                                                 got: JSONFieldError.excerpt(params.name)))
            }
            await plugin.restart()
            _ = try? await plugin.session()
            return plugin.status
        }
        return registry
    }
}
