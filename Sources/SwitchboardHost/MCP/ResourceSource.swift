import Jansson
import JSONRPC

/// Where resources come from (the core domains' and the plugins', through `PluginHost`): the MCP face's
/// `resources/*` and the plain face's `resources.*` both ask it, typed, never by method name. Every
/// call acts within the caller's request: its connection and session (the signed-in account).
public protocol ResourceSource: Sendable {
    /// Resources sorted by URI, at most `limit`, after the one `cursor` names (a `resources.list`
    /// cursor; `-32602` naming `cursor` when it is none); the cursor of the next page, nil at the end.
    func resources(after cursor: String?, limit: Int, within context: RequestContext) async throws -> (items: [JSONValue], nextCursor: String?)
    /// The same for URI templates, by `uriTemplate` (`resources.templates` cursors).
    func templates(after cursor: String?, limit: Int, within context: RequestContext) async throws -> (items: [JSONValue], nextCursor: String?)
    /// `{contents: [{uri, mimeType?, text | blob}]}` from whoever owns `uri`; `-32602` naming `uri` when no one does.
    func read(_ uri: String, within context: RequestContext) async throws -> JSONValue
    /// Subscribes the caller's connection to `uri`'s updates (`resources.updated {subscriptionId, uri}`),
    /// as `resources.subscribe` does; answers the subscription id.
    func subscribe(_ uri: String, within context: RequestContext) async throws -> String
    /// Ends a subscription of the caller's connection, as `resources.unsubscribe` does.
    func unsubscribe(_ subscriptionId: String, within context: RequestContext) async throws
}
