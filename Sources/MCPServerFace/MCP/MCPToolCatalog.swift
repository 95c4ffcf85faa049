import Jansson
import JSONRPC
import SwitchboardCore
import SwitchboardHost

/// The methods an MCP client sees as tools, each under its own name (`inbox.list`: MCP 2025-11-25
/// allows dots in tool names), with the schemas `rpc.discover` gives it.
///
/// Every request method named `namespace.verb` is a tool, plugins' included, except `*.subscribe` and
/// `*.unsubscribe`: their pushes are JSON-RPC notifications an MCP client would not understand (it
/// subscribes with `resources/subscribe`). Lifecycle and MCP methods have no dot and are no tools.
struct MCPToolCatalog {
    let dispatcher: Dispatcher
    let catalog: SchemaCatalog

    /// Most tools per `tools/list` page: more than any real setup has, so a client that reads one page
    /// (mcpo and several agent frameworks call `list_tools()` once) sees every tool.
    static let pageSize = 1_000
    /// Most bytes of tool descriptions per page (a page holds at least one tool).
    static let pageBytes = 4 << 20
    /// Most tools on a page this catalog makes (tests page with fewer).
    var pageLimit = MCPToolCatalog.pageSize

    static func isTool(_ entry: MethodEntry) -> Bool {
        entry.kind == .request && entry.name.contains(".") && !entry.name.hasPrefix("$/")
            && !entry.name.hasSuffix(".subscribe") && !entry.name.hasSuffix(".unsubscribe")
    }

    /// The tool `name`, if it is one.
    func entry(named name: String) -> MethodEntry? {
        dispatcher.entry(named: name).flatMap { Self.isTool($0) ? $0 : nil }
    }

    /// One page of tools, sorted by name, after the tool a cursor names; and the next cursor. A tool that
    /// arrived after the cursor was made (a plugin that started late) and sorts before it comes first
    /// on this page, so paging never skips one; when those would not fit one page, the page starts again
    /// from the first tool.
    func page(after cursor: String?) throws -> (tools: [JSONValue], nextCursor: String?) {
        let entries = dispatcher.entries.filter(Self.isTool)
        let router = dispatcher.router
        var late: [MethodEntry] = []
        var rest = entries[...]
        var after: String?
        if let cursor {
            let position = try MCPCursor(cursor)
            after = position.after
            late = entries.filter { $0.name <= position.after && (router?.arrival(of: $0.name) ?? 0) > position.seen }
            rest = entries[(entries.firstIndex { $0.name > position.after } ?? entries.count)...]
        }
        let seen = router?.latestArrival ?? 0
        var tools = late.map(tool)
        var bytes = tools.reduce(0) { $0 + $1.jsonText().utf8.count }
        if tools.count > pageLimit || bytes > Self.pageBytes {
            // More late tools than a page holds (many plugins started since, or a forged `seen`): the
            // listing starts again from the first tool, so no page is oversized and none is skipped.
            (tools, bytes, after, rest) = ([], 0, nil, entries[...])
        }
        for entry in rest {
            let tool = tool(entry)
            let size = tool.jsonText().utf8.count
            if !tools.isEmpty, tools.count >= pageLimit || bytes + size > Self.pageBytes {
                return (tools, after.map { MCPCursor(after: $0, seen: seen).text })
            }
            tools.append(tool)
            bytes += size
            after = entry.name
        }
        return (tools, nil)
    }

    /// `{name, description, inputSchema, outputSchema?}` for `entry`, and a plugin tool's own `title`,
    /// `annotations` and `icons`.
    func tool(_ entry: MethodEntry) -> JSONValue {
        let method = description(of: entry)
        let schemas = MCPToolSchema(components: catalog.components)
        var text = method["summary"]?.stringValue ?? entry.summary
        if let more = method["description"]?.stringValue, !more.isEmpty {
            // A plugin's summary is its description's first line: the description alone, not the line twice.
            text = more.hasPrefix(text) ? more : text + "\n\n" + more
        }
        var tool = dispatcher.router?.toolPresentation(named: entry.name) ?? [:]
        tool["name"] = .string(entry.name)
        tool["description"] = .string(text)
        tool["inputSchema"] = schemas.input(of: method)
        switch dispatcher.router?.toolOutput(named: entry.name) ?? .methodResult {
        case .methodResult:
            if let output = schemas.output(of: method) { tool["outputSchema"] = output }
        case .passedThrough(let declared):
            if let declared { tool["outputSchema"] = declared }
        }
        return .object(tool)
    }

    /// The OpenRPC method object: the schema file's, else the plugin's, else an open one.
    private func description(of entry: MethodEntry) -> JSONValue {
        catalog.methods[entry.name] ?? dispatcher.router?.methodDescription(named: entry.name)
            ?? ["name": .string(entry.name), "summary": .string(entry.summary), "params": []]
    }
}

/// A `tools/list` cursor: the name of the last tool of the page, so a page is stable while plugins add
/// and remove tools, and the latest tool arrival it had seen (``MethodRouter/latestArrival``). Opaque
/// to clients, which only hand it back: a ``Cursor`` of list `tools/list`, so an edited or cut one is
/// refused, and one of any length the host gave out (a plugin's tool names are not bounded) is taken.
struct MCPCursor {
    private static let list = "tools/list"

    var after: String
    var seen: UInt64

    init(after: String, seen: UInt64) {
        self.after = after
        self.seen = seen
    }

    init(_ text: String) throws(JSONFieldError) {
        let cursor = try Cursor.decode(text, list: Self.list, maximumLength: .max)
        guard let seen = UInt64(cursor.sortKey), !cursor.id.isEmpty else { throw Cursor.invalid(text, maximumLength: .max) }
        self.init(after: cursor.id, seen: seen)
    }

    var text: String { Cursor(list: Self.list, sortKey: String(seen), id: after).encoded }
}
