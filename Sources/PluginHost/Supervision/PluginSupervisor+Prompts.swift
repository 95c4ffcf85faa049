import Jansson
import JSONRPC

/// The plugins' prompts, named `namespace.prompt`: what `prompts.list`/`prompts.get` and the MCP face's
/// `prompts/list`/`prompts/get` serve.
extension PluginSupervisor {
    /// Every prompt, as MCP `Prompt` objects named `namespace.prompt`, sorted by name, each with `owner`
    /// (the plugin); starts plugins not started yet and waits for them a bounded time.
    public func prompts() async -> [JSONValue] {
        await settleForListing()
        return plugins.flatMap { plugin -> [JSONValue] in
            (plugin.runningSession?.prompts ?? []).compactMap { prompt in
                guard case .object(var object) = prompt, let name = object["name"]?.stringValue else { return nil }
                object["name"] = .string(plugin.namespace + "." + name)
                object["owner"] = .string(plugin.name)
                return .object(object)
            }
        }.sorted { ($0["name"]?.stringValue ?? "") < ($1["name"]?.stringValue ?? "") }
    }

    /// The prompt `name` filled with `arguments` (an object of strings): MCP's `GetPromptResult`
    /// `{description?, messages}` as its server answered it. `-32602` names `name` or `arguments.X`.
    public func prompt(named name: String, arguments: JSONValue?, within context: RequestContext) async throws -> JSONValue {
        let unknown = ResponseError.invalidParams(JSONFieldError(field: "name", expected: "the name of a prompt from prompts.list",
                                                                 got: JSONFieldError.excerpt(name)))
        guard let (plugin, own) = plugin(owning: name) else { throw unknown }
        let session = try await plugin.session()
        guard let prompt = session.prompts.first(where: { $0["name"]?.stringValue == own }) else { throw unknown }
        let filled = try PromptArguments.check(arguments, for: prompt)
        let answer = try await session.request("prompts/get", params: ["name": .string(own), "arguments": filled])
        if let problem = AnswerShape.promptProblem(answer) { throw session.malformed("prompts/get", problem) }
        return answer
    }
}

/// A prompt's arguments as MCP has them: an object of strings, each one the prompt declares, every
/// required one present.
enum PromptArguments {
    static func check(_ arguments: JSONValue?, for prompt: JSONValue) throws -> JSONValue {
        let given = arguments ?? [:]
        guard let object = given.objectValue else {
            throw ResponseError.invalidParams(JSONFieldError(field: "arguments", expected: "an object of strings", got: JSONFieldError.excerpt(given.jsonText())))
        }
        let declared = prompt["arguments"]?.arrayValue ?? []
        let names = Set(declared.compactMap { $0["name"]?.stringValue })
        for (key, value) in object {
            guard names.contains(key) else {
                throw ResponseError.invalidParams(JSONFieldError(field: "arguments." + JSONFieldError.excerpt(key),
                                                                 expected: "one of the prompt's arguments (\(names.sorted().joined(separator: ", ")))",
                                                                 got: "an argument it does not declare"))
            }
            guard value.stringValue != nil else {
                throw ResponseError.invalidParams(JSONFieldError(field: "arguments." + key, expected: "a string", got: JSONFieldError.excerpt(value.jsonText())))
            }
        }
        for argument in declared where argument["required"]?.boolValue == true {
            guard let key = argument["name"]?.stringValue, object[key] == nil else { continue }
            throw ResponseError.invalidParams(JSONFieldError(field: "arguments." + key, expected: "a string (required)", got: JSONFieldError.nothing))
        }
        return given
    }
}
