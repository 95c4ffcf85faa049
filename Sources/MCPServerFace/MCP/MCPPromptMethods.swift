import Jansson
import JSONRPC
import SwitchboardCore

/// MCP `prompts/list {cursor?}` → `{prompts, nextCursor?}`: every prompt of the plugins on one page.
public enum MCPPromptsList: RPCMethod {
    public static let name = "prompts/list"
    public static let summary = "MCP: lists the prompts the plugins offer."
    public typealias Params = ToolsList.Params
    public typealias Result = JSONValue

    /// Most prompts on one page: more than any real setup has.
    static let pageSize = 1_000

    /// The page after `cursor` (the name of the last prompt of the page before), `owner` under `_meta`.
    static func page(_ prompts: [JSONValue], after cursor: String?) throws -> JSONValue {
        var rest = prompts[...]
        if let cursor {
            // A ``Cursor`` naming the last prompt of the page before: edited or cut, it is refused.
            let after = try Cursor.decode(cursor, list: list, maximumLength: .max).id
            rest = prompts.drop { ($0["name"]?.stringValue ?? "") <= after }
        }
        let items = rest.prefix(pageSize).map(MCPOwner.underMeta)
        var answer: JSONObject = ["prompts": .array(items)]
        if rest.count > pageSize, let last = items.last?["name"]?.stringValue {
            answer["nextCursor"] = .string(Cursor(list: list, sortKey: "", id: last).encoded)
        }
        return .object(answer)
    }

    private static let list = "prompts/list"
}

/// MCP `prompts/get {name, arguments?}` → `{description?, messages}`.
public enum MCPPromptsGet: RPCMethod {
    public static let name = "prompts/get"
    public static let summary = "MCP: a prompt filled with its arguments, as its plugin answers it."

    /// `{name, arguments?, _meta?}`, as `tools/call`'s.
    public typealias Params = ToolsCall.Params
    public typealias Result = JSONValue
}
