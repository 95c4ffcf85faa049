import Jansson
import JSONRPC
import PluginHost
import SwitchboardCore

/// `prompts.list {cursor?, limit?}` → `{items, nextCursor, hasMore}`: the prompts the plugins' MCP servers
/// offer, named `namespace.prompt`, by name, each with its `owner`.
public enum PromptsList: RPCMethod {
    public static let name = "prompts.list"
    public static let summary = "Lists the prompts the plugins offer (name, description, arguments, owner), a page at a time."
    public typealias Params = PageRequest
    public typealias Result = ResourcePage
}

/// `prompts.get {name, arguments?}` → `{description?, messages}`: the prompt filled in by its plugin.
public enum PromptsGet: RPCMethod {
    public static let name = "prompts.get"
    public static let summary = "Fills a plugin's prompt with its arguments: the messages its server answers."

    public struct Params: Decodable, Sendable {
        public var name: String
        public var arguments: JSONValue?
    }

    public typealias Result = JSONValue
}

extension MethodRegistry {
    /// `prompts.list` and `prompts.get` over the plugins' prompts.
    public static func promptMethods(_ supervisor: PluginSupervisor) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.register(PromptsList.self) { params, context in
            supervisor.addClient(context.connection)
            return try ResourcePage(page: await supervisor.prompts(), by: "name", list: "prompts", params)
        }
        registry.register(PromptsGet.self) { params, context in
            try await supervisor.prompt(named: params.name, arguments: params.arguments, within: context)
        }
        return registry
    }
}
