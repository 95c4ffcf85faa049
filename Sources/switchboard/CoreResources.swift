import Jansson
import PluginHost

/// The core domains' resources, each read through the domain's own method.
enum CoreResources {
    static let all: [MethodResource] = [
        MethodResource(uri: "mail://inbox", name: "Inbox", description: "The inbox's first page of conversations (inbox.list).",
                       method: "inbox.list"),
        MethodResource(uri: "feed://items", name: "Feed", description: "The feed's first page (feed.list).", method: "feed.list"),
        MethodResource(uri: "feed://item/{id}", name: "Feed item", description: "One feed item by id (feed.get).", method: "feed.get") { variables in
            guard let text = variables["id"], let id = Int64(text), id >= 0 else { return nil }
            return ["id": .integer(id)]
        },
    ]
}
