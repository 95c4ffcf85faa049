import Jansson
import JSONRPC

/// MCP's resource methods over the host's own `resources.*` methods, called in the same request:
/// the same resources, contents and subscriptions, in MCP's shapes. Without those methods (a host
/// with no resource catalog) the lists are empty.
enum MCPResources {
    /// Most resources (or templates) on one MCP page: more than any real setup has, so a client that
    /// reads one page sees them all.
    static let pageSize = 1_000

    static func list(_ method: String, member: String, cursor: String?, context: RequestContext) async throws -> JSONValue {
        // `resources.list` and `resources.templates` page by cursor, at most 500 a page; an MCP page gathers
        // theirs up to `pageSize`, and MCP's nextCursor is theirs.
        var items: [JSONValue] = []
        var next = cursor
        repeat {
            var params: JSONObject = ["limit": 500]  // the most a `resources.*` list page holds
            if let next { params["cursor"] = .string(next) }
            let page: JSONValue
            do {
                page = try await call(method, .object(params), context)
            } catch let error as ResponseError where error.code == .methodNotFound {
                page = [:]
            }
            items += page["items"]?.arrayValue ?? []
            next = page["nextCursor"]?.stringValue
        } while next != nil && items.count < pageSize
        // `owner` is the host's own member; MCP keeps such things under `_meta`.
        let resources: [JSONValue] = items.map { item in
            guard case .object(var object) = item, let owner = object["owner"] else { return item }
            object["owner"] = nil
            object["_meta"] = ["switchboard/owner": owner]
            return .object(object)
        }
        var answer: JSONObject = [member: .array(resources)]
        if let next { answer["nextCursor"] = .string(next) }
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
