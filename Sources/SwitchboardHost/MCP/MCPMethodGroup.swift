import Jansson
import JSONRPC

extension MethodRegistry {
    /// The MCP server face (2025-11-25): `ping`, `tools/list`, `tools/call` and `resources/*`, on the
    /// same stream as every other method. `initialize` tells an MCP client by its params
    /// (``MCPVersion``); these methods work with or without it, and `tools/call` or `resources/subscribe`
    /// makes the connection word its notifications for MCP too (``NotificationDialect/mcp``).
    public static func mcpServerMethods(catalog: SchemaCatalog? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerImmediate(MCPPing.self) { _, _ in [:] }
        registry.register(ToolsList.self) { params, context in
            let tools = MCPToolCatalog(dispatcher: context.connection.dispatcher, catalog: catalog ?? .embedded)
            let page = try tools.page(after: params.cursor)
            var answer: JSONObject = ["tools": .array(page.tools)]
            if let next = page.nextCursor { answer["nextCursor"] = .string(next) }
            return .object(answer)
        }
        registry.register(ToolsCall.self) { params, context in
            context.connection.speak(.mcp)
            let tools = MCPToolCatalog(dispatcher: context.connection.dispatcher, catalog: catalog ?? .embedded)
            return try await MCPToolCall.run(params, tools: tools, context: context)
        }
        registry.register(MCPResourcesList.self) { params, context in
            return try await MCPResources.list("resources.list", member: "resources", cursor: params.cursor, context: context)
        }
        registry.register(MCPResourceTemplatesList.self) { params, context in
            return try await MCPResources.list("resources.templates", member: "resourceTemplates", cursor: params.cursor, context: context)
        }
        registry.register(MCPResourcesRead.self) { params, context in
            return try await MCPResources.read(params.uri, context: context)
        }
        registry.register(MCPResourcesSubscribe.self) { params, context in
            context.connection.speak(.mcp)
            return try await MCPResources.subscribe(params.uri, context: context)
        }
        registry.register(MCPResourcesUnsubscribe.self) { params, context in
            return try await MCPResources.unsubscribe(params.uri, context: context)
        }
        return registry
    }
}
