import Jansson
import JSONRPC

/// The methods an MCP client sees as tools, each under its own name (`inbox.list`: MCP 2025-11-25
/// allows dots in tool names), with the schemas `rpc.discover` gives it.
///
/// Every request method named `namespace.verb` is a tool, plugins' included, except `*.subscribe` and
/// `*.unsubscribe`: their pushes are JSON-RPC notifications an MCP client would not understand (it
/// subscribes with `resources/subscribe`). Lifecycle and MCP methods have no dot and are no tools.
struct MCPToolCatalog {
    let dispatcher: Dispatcher
    let catalog: SchemaCatalog

    /// Tools per `tools/list` page.
    static let pageSize = 20

    static func isTool(_ entry: MethodEntry) -> Bool {
        entry.kind == .request && entry.name.contains(".") && !entry.name.hasPrefix("$/")
            && !entry.name.hasSuffix(".subscribe") && !entry.name.hasSuffix(".unsubscribe")
    }

    /// The tool `name`, if it is one.
    func entry(named name: String) -> MethodEntry? {
        dispatcher.entry(named: name).flatMap { Self.isTool($0) ? $0 : nil }
    }

    /// One page of tools, sorted by name, after the tool a cursor names; and the next cursor.
    func page(after cursor: String?) throws -> (tools: [JSONValue], nextCursor: String?) {
        let entries = dispatcher.entries.filter(Self.isTool)
        var start = 0
        if let cursor {
            guard let after = MCPCursor.toolName(from: cursor) else {
                throw ResponseError.invalidParams(JSONFieldError(field: "cursor", expected: "a nextCursor from tools/list",
                                                                 got: JSONFieldError.excerpt(cursor)))
            }
            start = entries.firstIndex { $0.name > after } ?? entries.count
        }
        let slice = entries[start..<min(start + Self.pageSize, entries.count)]
        let next = slice.endIndex < entries.count ? slice.last.map { MCPCursor.make(after: $0.name) } : nil
        return (slice.map(tool), next)
    }

    /// `{name, description, inputSchema, outputSchema?}` for `entry`.
    func tool(_ entry: MethodEntry) -> JSONValue {
        let method = description(of: entry)
        let schemas = MCPToolSchema(components: catalog.components)
        var text = method["summary"]?.stringValue ?? entry.summary
        if let more = method["description"]?.stringValue, !more.isEmpty { text += "\n\n" + more }
        var tool: JSONObject = ["name": .string(entry.name), "description": .string(text), "inputSchema": schemas.input(of: method)]
        if let output = schemas.output(of: method) { tool["outputSchema"] = output }
        return .object(tool)
    }

    /// The OpenRPC method object: the schema file's, else the plugin's, else an open one.
    private func description(of entry: MethodEntry) -> JSONValue {
        catalog.methods[entry.name] ?? dispatcher.router?.methodDescription(named: entry.name)
            ?? ["name": .string(entry.name), "summary": .string(entry.summary), "params": []]
    }
}

/// `tools/list` cursors: the name of the last tool of the page, so a page is stable while plugins add
/// and remove tools; opaque to clients, which only hand them back.
enum MCPCursor {
    private static let prefix = "after:"

    static func make(after name: String) -> String { prefix + name }

    static func toolName(from cursor: String) -> String? {
        guard cursor.hasPrefix(prefix), cursor.count > prefix.count, cursor.count <= 512 else { return nil }
        return String(cursor.dropFirst(prefix.count))
    }
}
