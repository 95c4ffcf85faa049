import Jansson
import JSONRPC

/// Where prompts come from (the plugins' MCP servers, through `PluginHost`): the MCP face's `prompts/*`
/// and the plain face's `prompts.*` both ask it, typed, never by method name.
public protocol PromptSource: Sendable {
    /// Every prompt, as MCP `Prompt` objects named `namespace.prompt`, sorted by name, each with
    /// `owner` (the plugin); starts plugins not started yet and waits for them a bounded time.
    func prompts() async -> [JSONValue]
    /// The prompt `name` filled with `arguments` (an object of strings): MCP's `GetPromptResult`
    /// `{description?, messages}` as its server answered it. `-32602` names `name` or `arguments.X`.
    func prompt(named name: String, arguments: JSONValue?, within context: RequestContext) async throws -> JSONValue
}
