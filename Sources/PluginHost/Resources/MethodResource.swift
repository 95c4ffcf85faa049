import Jansson

/// A resource of a core domain, read through one of its methods: `mail://inbox` is `inbox.list`'s
/// first page, `feed://item/{id}` is `feed.get {id}`. The contents are the method's result as JSON.
public struct MethodResource: Sendable {
    /// A fixed URI, or a template with `{variables}`.
    public var uri: String
    public var name: String
    public var description: String
    public var method: String
    /// The method's params from the template's variables; nil when a value is not acceptable (the
    /// URI is then owned by no one).
    public var params: @Sendable (_ variables: [String: String]) -> JSONValue?

    public init(uri: String, name: String, description: String, method: String,
                params: @escaping @Sendable ([String: String]) -> JSONValue? = { _ in [:] }) {
        self.uri = uri
        self.name = name
        self.description = description
        self.method = method
        self.params = params
    }

    var template: URITemplate { URITemplate(uri) }
    var isTemplate: Bool { uri.contains("{") }
}
