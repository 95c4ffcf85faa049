import Jansson

/// The host's `owner` member of a listed resource, template or prompt (the plugin, or `host`), where MCP
/// keeps such things: under `_meta`, as `switchboard/owner`.
enum MCPOwner {
    static func underMeta(_ item: JSONValue) -> JSONValue {
        guard case .object(var object) = item, let owner = object["owner"] else { return item }
        object["owner"] = nil
        object["_meta"] = ["switchboard/owner": owner]
        return .object(object)
    }
}
