import DomainMethods
import Jansson
import JSONRPC
import PluginHost

/// Every resource the host offers, core domains' and plugins' alike, routed by URI: a core resource
/// is read through its domain's method in the reader's request, a plugin's through the plugin's
/// `resources/read`. A URI no one owns is `-32602` naming `uri`; nothing here ever opens a file path.
/// `resources.subscribe` follows a core resource through its domain's change log, a plugin's through
/// the updates the plugin reports (``PluginSupervisor/resourceFeed(for:)``).
public struct ResourceCatalog: Sendable {
    public let core: [MethodResource]
    public let plugins: PluginSupervisor?

    public init(core: [MethodResource], plugins: PluginSupervisor?) {
        self.core = core
        self.plugins = plugins
    }

    /// Concrete resources: the core's fixed URIs, then each running plugin's.
    func list() async -> [JSONValue] {
        let items: [JSONValue] = core.filter { !$0.isTemplate }.map { resource in
            ["uri": .string(resource.uri), "name": .string(resource.name), "description": .string(resource.description),
             "mimeType": "application/json", "owner": "host"]
        }
        return items + (await plugins?.resources() ?? [])
    }

    /// URI templates: the core's, then each running plugin's.
    func templates() async -> [JSONValue] {
        let items: [JSONValue] = core.filter(\.isTemplate).map { resource in
            ["uriTemplate": .string(resource.uri), "name": .string(resource.name), "description": .string(resource.description),
             "mimeType": "application/json", "owner": "host"]
        }
        return items + (await plugins?.resourceTemplates() ?? [])
    }

    /// Reads `uri` from whoever owns it: `{contents: [{uri, mimeType?, text | blob}]}`.
    func read(_ uri: String, context: RequestContext) async throws -> JSONValue {
        for resource in core {
            guard let variables = resource.template.match(uri), let params = resource.params(variables) else { continue }
            // In the reader's own request: its connection, session (the signed-in account) and limits.
            let result = try await context.connection.dispatcher.invoke(resource.method, params: params, within: context)
            return ["contents": [["uri": .string(uri), "mimeType": "application/json", "text": .string(result.jsonText())]]]
        }
        if let contents = try await fromPlugins(uri, { try await $0.readResource(uri) }) { return contents }
        throw Self.refused(uri, Self.servedURI)
    }

    /// What `resources.subscribe {uri}` follows: a core resource's change log, or a plugin's updates
    /// (``PluginSupervisor/resourceFeed(for:)``).
    func updates(of uri: String, context: RequestContext) async throws -> any SubscriptionFeed {
        for resource in core where resource.template.match(uri).flatMap(resource.params) != nil {
            guard let updates = resource.updates else { throw Self.refused(uri, "a resource that can change") }
            return try updates(uri, context)
        }
        if let feed = try await fromPlugins(uri, { try await $0.resourceFeed(for: uri) }) { return feed }
        throw Self.refused(uri, Self.servedURI)
    }

    private static let servedURI = "a URI a domain or a plugin serves (see resources.list and resources.templates)"

    /// What `ask` finds at the plugins for `uri` (nil: no plugin owns it); a URI no one owns while some
    /// plugin's listing is missing is refused naming those plugins.
    private func fromPlugins<Found>(_ uri: String, _ ask: (PluginSupervisor) async throws -> Found?) async throws -> Found? {
        guard let plugins else { return nil }
        do {
            return try await ask(plugins)
        } catch let unlisted as UnlistedPlugins {
            throw Self.refused(uri, Self.servedURI, unlisted: unlisted)
        }
    }

    private static func refused(_ uri: String, _ expected: String) -> ResponseError {
        ResponseError.invalidParams(JSONFieldError(field: "uri", expected: expected, got: JSONFieldError.excerpt(uri)))
    }

    /// Refuses `uri` as no one's, naming the plugins that never listed what they offer and could not be
    /// started to tell: one of them may own it. `data.unlisted` holds each one's `{plugin, reason, message}`.
    private static func refused(_ uri: String, _ expected: String, unlisted: UnlistedPlugins) -> ResponseError {
        var error = refused(uri, expected)
        let names = unlisted.plugins.map(\.plugin.name).joined(separator: ", ")
        error.message += "; not listed by plugin \(names), which could not be started (it may own the URI)"
        var data = error.data?.objectValue ?? [:]
        data["unlisted"] = .array(unlisted.plugins.map { plugin, failure in
            ["plugin": .string(plugin.name), "reason": failure.data?["reason"] ?? "crashed", "message": .string(failure.message)]
        })
        error.data = .object(data)
        return error
    }
}
