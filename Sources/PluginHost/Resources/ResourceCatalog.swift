import DomainMethods
import Jansson
import JSONRPC
import SwitchboardHost

/// Every resource the host offers, core domains' and plugins' alike, routed by URI: a core resource
/// is read through its domain's method in the reader's request, a plugin's through the plugin's
/// `resources/read`. A URI no one owns is `-32602` naming `uri`; nothing here ever opens a file path.
/// `resources.subscribe` follows a core resource through its domain's change log, a plugin's through
/// the updates the plugin reports (``ResourceUpdates``).
public struct ResourceCatalog: Sendable {
    public let core: [MethodResource]
    public let plugins: PluginSupervisor?

    public init(core: [MethodResource], plugins: PluginSupervisor?) {
        self.core = core
        self.plugins = plugins
    }

    /// Concrete resources: the core's fixed URIs, then each running plugin's.
    func list() async -> [JSONValue] {
        var items: [JSONValue] = core.filter { !$0.isTemplate }.map { resource in
            ["uri": .string(resource.uri), "name": .string(resource.name), "description": .string(resource.description),
             "mimeType": "application/json", "owner": "host"]
        }
        for (plugin, session) in await runningPlugins() {
            items += session.resources.compactMap { Self.item($0, owner: plugin.name, key: "uri") }
        }
        return items
    }

    /// URI templates: the core's, then each running plugin's.
    func templates() async -> [JSONValue] {
        var items: [JSONValue] = core.filter(\.isTemplate).map { resource in
            ["uriTemplate": .string(resource.uri), "name": .string(resource.name), "description": .string(resource.description),
             "mimeType": "application/json", "owner": "host"]
        }
        for (plugin, session) in await runningPlugins() {
            items += session.templates.compactMap { Self.item($0, owner: plugin.name, key: "uriTemplate") }
        }
        return items
    }

    /// Reads `uri` from whoever owns it: `{contents: [{uri, mimeType?, text | blob}]}`.
    func read(_ uri: String, context: RequestContext) async throws -> JSONValue {
        for resource in core {
            guard let variables = resource.template.match(uri), let params = resource.params(variables) else { continue }
            // In the reader's own request: its connection, session (the signed-in account) and limits.
            let result = try await context.connection.dispatcher.invoke(resource.method, params: params, within: context)
            return ["contents": [["uri": .string(uri), "mimeType": "application/json", "text": .string(result.jsonText())]]]
        }
        if let session = try await routedSession(owning: uri) {
            let answer = try await session.request("resources/read", params: ["uri": .string(uri)])
            return ["contents": answer["contents"] ?? []]
        }
        throw Self.refused(uri, Self.servedURI)
    }

    /// What `resources.subscribe {uri}` follows. A plugin's resource is subscribed at the plugin
    /// (MCP `resources/subscribe`), which must offer the `resources.subscribe` capability, and
    /// unsubscribed there when its last subscription ends.
    func updates(of uri: String, context: RequestContext) async throws -> any SubscriptionFeed {
        for resource in core where resource.template.match(uri).flatMap(resource.params) != nil {
            guard let updates = resource.updates else { throw Self.refused(uri, "a resource that can change") }
            return try updates(uri, context)
        }
        if let session = try await routedSession(owning: uri) {
            guard session.capabilities["resources"]?["subscribe"] == true, let plugins else {
                throw Self.refused(uri, "a resource whose plugin reports updates (MCP capability resources.subscribe)")
            }
            try await session.subscribe(to: uri)
            return PluginResourceFeed(uri: uri, updates: plugins.resourceUpdates) { session.unsubscribe(from: uri) }
        }
        throw Self.refused(uri, Self.servedURI)
    }

    private static let servedURI = "a URI a domain or a plugin serves (see resources.list and resources.templates)"

    /// ``pluginSession(owning:)``; a URI no one owns while some plugin's listing is missing is refused
    /// naming those plugins.
    private func routedSession(owning uri: String) async throws -> PluginSession? {
        do {
            return try await pluginSession(owning: uri)
        } catch let unlisted as UnlistedPlugins {
            throw Self.refused(uri, Self.servedURI, unlisted: unlisted)
        }
    }

    private static func refused(_ uri: String, _ expected: String) -> ResponseError {
        ResponseError.invalidParams(JSONFieldError(field: "uri", expected: expected, got: JSONFieldError.excerpt(uri)))
    }

    /// The running session of the plugin that owns `uri`, by what it announced. A plugin that is not
    /// running (it crashed, or was stopped) but whose last run announced `uri` is started again, as a
    /// call into its namespace would start it; one not started yet is started by the listing wait first.
    /// A plugin that never listed what it offers (it crashed before its first listing) is started
    /// again too, under the usual back-off and crash limit, to see whether it owns `uri`.
    /// Throws the plugin's error when it cannot run (`failed`, say); nil when no plugin owns `uri`;
    /// ``UnlistedPlugins`` when none does but a plugin that never listed could not be started.
    private func pluginSession(owning uri: String) async throws -> PluginSession? {
        for (_, session) in await runningPlugins() where session.offer.contains(uri) { return session }
        let configured = plugins?.plugins ?? []
        for plugin in configured where plugin.offers(uri) {
            let session = try await plugin.session()
            if session.offer.contains(uri) { return session }
        }
        var down: [(plugin: Plugin, error: ResponseError)] = []
        for plugin in configured where plugin.neverListed {
            do {
                let session = try await plugin.session()
                if session.offer.contains(uri) { return session }
            } catch {
                down.append((plugin, ResponseError(error)))
            }
        }
        if !down.isEmpty { throw UnlistedPlugins(down) }
        return nil
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

    private func runningPlugins() async -> [(Plugin, PluginSession)] {
        guard let plugins else { return [] }
        await plugins.settleForListing()
        return plugins.plugins.compactMap { plugin in plugin.runningSession.map { (plugin, $0) } }
    }

    /// A plugin's resource or template with its owner, or nil when it lacks the key: only the members
    /// the schema lists are passed on.
    private static func item(_ value: JSONValue, owner: String, key: String) -> JSONValue? {
        guard let address = value[key], address.stringValue != nil else { return nil }
        var item: JSONObject = [key: address, "name": value["name"].flatMap { $0.stringValue == nil ? nil : $0 } ?? address]
        for member in ["description", "mimeType"] {
            if let text = value[member], text.stringValue != nil { item[member] = text }
        }
        item["owner"] = .string(owner)
        return .object(item)
    }
}

/// Plugins that never listed what they offer and could not be started to tell, with why.
private struct UnlistedPlugins: Error {
    let plugins: [(plugin: Plugin, error: ResponseError)]
    init(_ plugins: [(plugin: Plugin, error: ResponseError)]) { self.plugins = plugins }
}
