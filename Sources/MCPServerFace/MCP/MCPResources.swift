import DomainMethods
import Jansson
import JSONRPC

/// MCP's resource methods over ``HostResources`` (the entry points `resources.*` call
/// too), in the same request: the same resources, contents and subscriptions, in MCP's shapes. Without
/// them (a registry made without resources) the lists are empty.
enum MCPResources {
    /// Most resources (or templates) on one MCP page: more than any real setup has, so a client that
    /// reads one page sees them all. MCP's cursor is `resources.list`'s.
    static let pageSize = 1_000

    static func list(_ page: ResourcePage?, member: String) -> JSONValue {
        var answer: JSONObject = [member: .array((page?.items ?? []).map(MCPOwner.underMeta))]
        if let next = page?.nextCursor { answer["nextCursor"] = .string(next) }
        return .object(answer)
    }

    static func read(_ uri: String, from source: HostResources?, context: RequestContext) async throws -> JSONValue {
        let notFound = ResponseError(code: resourceNotFound, message: "Resource not found: \(JSONFieldError.excerpt(uri))",
                                     data: ["uri": .string(JSONFieldError.excerpt(uri))])
        guard let source else { throw notFound }
        do {
            return try await source.read(uri, within: context)
        } catch let error as ResponseError where error.code == .invalidParams && error.data?["field"] == "uri" || error.code == .notFound {
            // A URI no one serves, or one naming an item that is not there (`feed://item/99999999`): MCP
            // has one code for both.
            throw notFound
        }
    }

    /// Subscribes once per URI and connection; a second subscribe to the same URI changes nothing.
    static func subscribe(_ uri: String, to source: HostResources?, context: RequestContext) async throws -> JSONValue {
        guard let source else { throw ResponseError.methodNotFound(MCPResourcesSubscribe.name) }
        let subscriptions = subscriptions(of: context.connection)
        guard subscriptions.claim(uri) else { return [:] }
        let id: String
        do {
            id = try await source.subscription(to: uri, within: context).subscriptionId
        } catch {
            _ = subscriptions.record(uri, id: nil)
            throw error
        }
        if let released = subscriptions.record(uri, id: id) { _ = try? source.unsubscription(released, within: context) }
        return [:]
    }

    static func unsubscribe(_ uri: String, from source: HostResources?, context: RequestContext) async throws -> JSONValue {
        if let source, let id = subscriptions(of: context.connection).release(uri) {
            _ = try source.unsubscription(id, within: context)
        }
        return [:]
    }

    /// MCP's code for a URI no one serves.
    static let resourceNotFound = ErrorCode(rawValue: -32002)

    private static func subscriptions(of connection: Connection) -> MCPResourceSubscriptions {
        connection.session.value("mcp.resourceSubscriptions") { MCPResourceSubscriptions() }
    }
}
