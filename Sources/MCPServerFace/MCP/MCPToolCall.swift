import Jansson
import JSONRPC
import PluginHost

/// `tools/call {name, arguments}`: runs the method `name` with `arguments` as its params, in this
/// request, and answers MCP's `CallToolResult`.
///
/// The result is the method's result as `structuredContent` (when it is an object) and as the JSON
/// text block MCP asks for; a plugin's tool answers its own `CallToolResult`, passed through as the
/// plugin sent it (``PluginRouter/callTool(named:arguments:within:)``). An error the method answers (bad arguments, a domain error, a plugin's)
/// is a result with `isError: true` whose text is the JSON-RPC error object, so the model can read
/// and correct it; an unknown tool is a JSON-RPC `-32602`, a cancelled call `-32800` (its `data` saying
/// what was stored, or that a plugin was told to stop and what it did is unknown).
enum MCPToolCall {
    static func run(_ params: ToolsCall.Params, tools: MCPToolCatalog, plugins: PluginSupervisor?, context: RequestContext) async throws -> JSONValue {
        // MCP's arguments are an object; null is taken as none.
        if let arguments = params.arguments, arguments != .null, arguments.objectValue == nil {
            throw JSONFieldError.outOfRange(field: "arguments", expected: "an object (the tool's arguments)", got: arguments)
        }
        guard tools.entry(named: params.name) != nil else {
            throw ResponseError(code: .invalidParams, message: "Unknown tool: \(JSONFieldError.excerpt(params.name))",
                                data: ["field": "name", "got": .string(JSONFieldError.excerpt(params.name))])
        }
        do {
            let arguments = params.arguments == .null ? nil : params.arguments
            if let result = try await plugins?.router.callTool(named: params.name, arguments: arguments, within: context) {
                return result
            }
            let result = try await tools.dispatcher.invoke(params.name, params: arguments, progressToken: context.progressToken,
                                                           within: context)
            var answer: JSONObject = ["content": [["type": "text", "text": .string(result.jsonText())]], "isError": false]
            if result.objectValue != nil { answer["structuredContent"] = result }
            return .object(answer)
        } catch {
            let failure = ResponseError(error)
            // A cancelled call is a JSON-RPC -32800 (with what it wrote, when it says), a plugin's tool as a method.
            if failure.code == .requestCancelled || Task.isCancelled { throw error }
            var object: JSONObject = ["code": .integer(Int64(failure.code.rawValue)), "message": .string(failure.message)]
            if let data = failure.data { object["data"] = data }
            return ["content": [["type": "text", "text": .string(JSONValue.object(object).jsonText())]], "isError": true]
        }
    }
}
