import Jansson

/// The resources and URI templates a plugin announced (`resources/list`, `resources/templates/list`):
/// what the host routes to it by URI.
struct ResourceOffer: Sendable {
    var resources: [JSONValue] = []
    var templates: [JSONValue] = []

    /// Whether `uri` is one of the resources or matches one of the templates.
    func contains(_ uri: String) -> Bool {
        resources.contains { $0["uri"]?.stringValue == uri }
            || templates.contains { $0["uriTemplate"]?.stringValue.map { URITemplate($0).match(uri) != nil } ?? false }
    }
}
