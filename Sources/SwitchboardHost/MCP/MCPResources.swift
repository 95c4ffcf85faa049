import Jansson
import JSONRPC

/// MCP's resource methods over the host's own `resources.*` methods, called in the same request:
/// the same resources, contents and subscriptions, in MCP's shapes. Without those methods (a host
/// with no resource catalog) the lists are empty.
enum MCPResources {
    static func list(_ method: String, member: String, cursor: String?, context: RequestContext) async throws -> JSONValue {
        // `resources.list` and `resources.templates` page by cursor; MCP's nextCursor is theirs.
        let page: JSONValue
        do {
            page = try await call(method, cursor.map { ["cursor": .string($0)] } ?? [:], context)
        } catch let error as ResponseError where error.code == .methodNotFound {
            page = [:]
        }
        // `owner` is the host's own member; MCP keeps such things under `_meta`.
        let resources: [JSONValue] = (page["items"]?.arrayValue ?? []).map { item in
            guard case .object(var object) = item, let owner = object["owner"] else { return item }
            object["owner"] = nil
            object["_meta"] = ["switchboard/owner": owner]
            return .object(object)
        }
        var answer: JSONObject = [member: .array(resources)]
        if let next = page["nextCursor"], next.stringValue != nil { answer["nextCursor"] = next }
        return .object(answer)
    }

    static func read(_ uri: String, context: RequestContext) async throws -> JSONValue {
        do {
            return try await call("resources.read", ["uri": .string(uri)], context)
        } catch let error as ResponseError where error.code == .invalidParams && error.data?["field"] == "uri" {
            throw ResponseError(code: resourceNotFound, message: "Resource not found: \(JSONFieldError.excerpt(uri))", data: ["uri": .string(uri)])
        }
    }

    /// Subscribes once per URI and connection; a second subscribe to the same URI changes nothing.
    static func subscribe(_ uri: String, context: RequestContext) async throws -> JSONValue {
        let subscriptions = subscriptions(of: context.connection)
        guard subscriptions.claim(uri) else { return [:] }
        do {
            let answer = try await call("resources.subscribe", ["uri": .string(uri)], context)
            subscriptions.record(uri, id: answer["subscriptionId"]?.stringValue)
        } catch {
            subscriptions.record(uri, id: nil)
            throw error
        }
        return [:]
    }

    static func unsubscribe(_ uri: String, context: RequestContext) async throws -> JSONValue {
        if let id = subscriptions(of: context.connection).release(uri) {
            _ = try await call("resources.unsubscribe", ["subscriptionId": .string(id)], context)
        }
        return [:]
    }

    /// MCP's code for a URI no one serves.
    static let resourceNotFound = ErrorCode(rawValue: -32002)

    private static func call(_ method: String, _ params: JSONValue, _ context: RequestContext) async throws -> JSONValue {
        try await context.connection.dispatcher.invoke(method, params: params, progressToken: nil, within: context)
    }

    private static func subscriptions(of connection: Connection) -> MCPResourceSubscriptions {
        connection.session.value("mcp.resourceSubscriptions") { MCPResourceSubscriptions() }
    }
}
