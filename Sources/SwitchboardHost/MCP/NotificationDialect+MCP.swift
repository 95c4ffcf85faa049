import Jansson
import JSONRPC

extension NotificationDialect {
    /// What an MCP client expects instead of the host's own notifications:
    ///
    /// | host | MCP |
    /// | --- | --- |
    /// | `$/progress {token, value}` | `notifications/progress {progressToken, progress, total?, message?}` |
    /// | `resources.updated {subscriptionId, uri, …}` | `notifications/resources/updated {uri}` |
    /// | `resources.listChanged` | `notifications/resources/list_changed` |
    /// | `host.methodsChanged` | `notifications/tools/list_changed` |
    /// | `prompts.listChanged` | `notifications/prompts/list_changed` |
    ///
    /// Anything else goes out as it is: the events of a subscription the client made itself with a
    /// method call (`chat.subscribe`), which only a client that speaks both asks for. A notification
    /// the host sends on its own that MCP does not define (`chat.messageState` after a `chat.send` tool
    /// call) is not sent (``NotificationDialect/passesOwnNotifications``): an MCP client has no use for
    /// it, and the SDKs log each as invalid. A progress report without a number is dropped: MCP's needs one.
    /// An update for a subscription a `subscriptions/listen` stream made (``MCPListens``) carries that
    /// stream's id in `_meta`, as the 2026-07-28 revision asks.
    static func mcp(listens: MCPListens) -> NotificationDialect {
        NotificationDialect(passesOwnNotifications: false) { method, params in wording(method, params, listens: listens) }
    }

    private static func wording(_ method: String, _ params: JSONValue?, listens: MCPListens) -> (method: String, params: JSONValue?)? {
        switch method {
        case "$/progress":
            guard let token = params?["token"], let params = MCPProgress.params(token: token, value: params?["value"]) else { return nil }
            return ("notifications/progress", params)
        case HostPush.resourcesUpdated:
            guard let uri = params?["uri"] else { return nil }
            guard let listen = params?["subscriptionId"]?.stringValue.flatMap(listens.stream(of:)) else {
                return ("notifications/resources/updated", ["uri": uri])
            }
            return ("notifications/resources/updated", ["uri": uri, "_meta": [MCPListens.streamKey: listen]])
        case HostPush.resourcesListChanged:
            return ("notifications/resources/list_changed", nil)
        case HostPush.methodsChanged:
            return ("notifications/tools/list_changed", nil)
        case HostPush.promptsListChanged:
            return ("notifications/prompts/list_changed", nil)
        default:
            return (method, params)
        }
    }
}

/// The host's progress values in MCP's terms: `{step, of}` (host.sleep), `{done, total, stage?}`
/// (imports, seeding) and a plugin's `{progress, total?, message?}`.
enum MCPProgress {
    static func params(token: JSONValue, value: JSONValue?) -> JSONValue? {
        guard let value, let progress = number(value, "progress", "done", "step") else { return nil }
        var params: JSONObject = ["progressToken": token, "progress": progress]
        if let total = number(value, "total", "of") { params["total"] = total }
        if let message = (value["message"] ?? value["stage"])?.stringValue { params["message"] = .string(message) }
        return .object(params)
    }

    private static func number(_ value: JSONValue, _ names: String...) -> JSONValue? {
        for name in names {
            if let member = value[name], member.int64Value != nil || member.doubleValue != nil { return member }
        }
        return nil
    }
}
