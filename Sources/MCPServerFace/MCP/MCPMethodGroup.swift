import Jansson
import JSONRPC
import PluginHost
import SwitchboardCore
import SwitchboardHost

extension MethodRegistry {
    /// The MCP server face, on the same stream as every other method: `ping`, `tools/list`,
    /// `tools/call`, `resources/*` and `prompts/*` (2025-11-25), `server/discover` and `subscriptions/listen`
    /// (2026-07-28). `initialize` tells an MCP client by its params (``MCPVersion``); these methods
    /// work with or without it, and `tools/call`, `resources/subscribe`, `server/discover` or
    /// `subscriptions/listen` make the connection word its notifications for MCP too
    /// (``NotificationDialect/mcp(listens:)``). Results to requests naming the 2026-07-28 revision in
    /// `_meta` carry what it adds (``MCPResultStamp``).
    /// Resources come from `resources` (what `resources.*` serve), prompts and plugin tools from `plugins`,
    /// called typed (none: empty lists).
    public static func mcpServerMethods(catalog: SchemaCatalog? = nil, plugins: PluginSupervisor? = nil,
                                        resources: HostResources? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerImmediate(MCPPing.self) { _, _ in [:] }
        registry.registerImmediate(ServerDiscover.self) { _, context in ServerDiscover.result(on: context.connection) }
        registry.register(SubscriptionsListen.self) { params, context in
            try await SubscriptionsListen.run(params, resources: resources, context: context)
        }
        registry.register(ToolsList.self) { params, context in
            await context.connection.dispatcher.router?.settle()
            let tools = MCPToolCatalog(dispatcher: context.connection.dispatcher, catalog: catalog ?? .embedded)
            let page = try tools.page(after: params.cursor)
            var answer: JSONObject = ["tools": .array(page.tools)]
            if let next = page.nextCursor { answer["nextCursor"] = .string(next) }
            return MCPResultStamp.stamped(.object(answer), meta: params.meta, cacheable: true)
        }
        registry.register(ToolsCall.self) { params, context in
            MCPSession.speak(on: context.connection)
            let tools = MCPToolCatalog(dispatcher: context.connection.dispatcher, catalog: catalog ?? .embedded)
            return MCPResultStamp.stamped(try await MCPToolCall.run(params, tools: tools, plugins: plugins, context: context), meta: params.meta,
                                         cacheable: false)
        }
        registry.register(MCPResourcesList.self) { params, context in
            let page = try await resources?.resourcePage(PageRequest(cursor: params.cursor, limit: MCPResources.pageSize), within: context)
            return MCPResultStamp.stamped(MCPResources.list(page, member: "resources"), meta: params.meta, cacheable: true)
        }
        registry.register(MCPResourceTemplatesList.self) { params, context in
            let page = try await resources?.templatePage(PageRequest(cursor: params.cursor, limit: MCPResources.pageSize))
            return MCPResultStamp.stamped(MCPResources.list(page, member: "resourceTemplates"), meta: params.meta, cacheable: true)
        }
        registry.register(MCPResourcesRead.self) { params, context in
            MCPResultStamp.stamped(try await MCPResources.read(params.uri, from: resources, context: context), meta: params.meta, cacheable: true)
        }
        registry.register(MCPResourcesSubscribe.self) { params, context in
            MCPSession.speak(on: context.connection)
            return try await MCPResources.subscribe(params.uri, to: resources, context: context)
        }
        registry.register(MCPResourcesUnsubscribe.self) { params, context in
            try await MCPResources.unsubscribe(params.uri, from: resources, context: context)
        }
        registry.register(MCPPromptsList.self) { params, _ in
            MCPResultStamp.stamped(try MCPPromptsList.page(await plugins?.prompts() ?? [], after: params.cursor), meta: params.meta, cacheable: true)
        }
        registry.register(MCPPromptsGet.self) { params, context in
            guard let plugins else {
                throw ResponseError.invalidParams(JSONFieldError(field: "name", expected: "the name of a prompt from prompts/list",
                                                                 got: JSONFieldError.excerpt(params.name)))
            }
            let result = try await plugins.prompt(named: params.name, arguments: params.arguments, within: context)
            return MCPResultStamp.stamped(result, meta: params.meta, cacheable: false)
        }
        return registry
    }
}
