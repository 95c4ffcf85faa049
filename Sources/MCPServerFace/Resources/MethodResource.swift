import DomainMethods
import Jansson
import JSONRPC
import PluginHost

/// A resource of a core domain, read through one of its methods: `mail://inbox` is `inbox.list`'s
/// first page, `feed://item/{id}` is `feed.get {id}`. The contents are the method's result as JSON,
/// the method called by its type in the reader's request, so it acts for the reader's account.
public struct MethodResource: Sendable {
    /// A fixed URI, or a template with `{variables}`.
    public var uri: String
    public var name: String
    public var description: String
    public var method: any RPCMethod.Type
    /// The method's params from the template's variables; nil when a value is not acceptable (the
    /// URI is then owned by no one).
    public var params: @Sendable (_ variables: [String: String]) -> JSONValue?
    /// What `resources.subscribe` follows for a URI of this resource: `resources.updated` hints from
    /// the domain's change log (see ``ChangeHintFeed``); nil when the resource never changes.
    public var updates: (@Sendable (_ uri: String, _ context: RequestContext) throws -> any SubscriptionFeed)?

    public init(uri: String, name: String, description: String, method: any RPCMethod.Type,
                params: @escaping @Sendable ([String: String]) -> JSONValue? = { _ in [:] },
                updates: (@Sendable (_ uri: String, _ context: RequestContext) throws -> any SubscriptionFeed)? = nil) {
        self.uri = uri
        self.name = name
        self.description = description
        self.method = method
        self.params = params
        self.updates = updates
    }

    var template: URITemplate { URITemplate(uri) }
    var isTemplate: Bool { uri.contains("{") }
}
