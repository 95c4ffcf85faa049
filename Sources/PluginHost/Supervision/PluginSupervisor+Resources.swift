import DomainMethods
import Jansson
import JSONRPC

/// The plugins' resources, routed by URI by what each plugin announced: what the resource catalog
/// (MCPServerFace) merges with the core domains' for `resources.*` and MCP's `resources/*`.
extension PluginSupervisor {
    /// The running plugins' resources, each with its `owner` (the plugin); starts plugins not started
    /// yet and waits for them a bounded time.
    public func resources() async -> [JSONValue] {
        await runningPlugins().flatMap { plugin, session in session.resources.compactMap { Self.item($0, owner: plugin.name, key: "uri") } }
    }

    /// The same for URI templates.
    public func resourceTemplates() async -> [JSONValue] {
        await runningPlugins().flatMap { plugin, session in
            session.templates.compactMap { Self.item($0, owner: plugin.name, key: "uriTemplate") }
        }
    }

    /// `{contents: [{uri, mimeType?, text | blob}]}` from the plugin that owns `uri`; nil when none does.
    /// Throws the plugin's error when it cannot run, ``UnlistedPlugins`` when no plugin owns `uri` but
    /// one that never listed could not be started.
    public func readResource(_ uri: String) async throws -> JSONValue? {
        guard let session = try await session(owning: uri) else { return nil }
        let answer = try await session.request("resources/read", params: ["uri": .string(uri)])
        if let problem = AnswerShape.readProblem(answer) { throw session.malformed("resources/read", problem) }
        return ["contents": answer["contents"] ?? []]
    }

    /// What `resources.subscribe {uri}` follows for a plugin's resource: subscribed at the plugin (MCP
    /// `resources/subscribe`), which must offer the `resources.subscribe` capability, and unsubscribed
    /// there when its last subscription ends. Nil when no plugin owns `uri`; throws as ``readResource(_:)``.
    public func resourceFeed(for uri: String) async throws -> (any SubscriptionFeed)? {
        guard let session = try await session(owning: uri) else { return nil }
        guard session.capabilities["resources"]?["subscribe"] == true else {
            throw ResponseError.invalidParams(JSONFieldError(field: "uri", expected: "a resource whose plugin reports updates (MCP capability resources.subscribe)",
                                                             got: JSONFieldError.excerpt(uri)))
        }
        try await session.subscribe(to: uri)
        return PluginResourceFeed(uri: uri, updates: resourceUpdates) { session.unsubscribe(from: uri) }
    }

    /// The running session of the plugin that owns `uri`, by what it announced. A plugin that is not
    /// running (it crashed, or was stopped) but whose last run announced `uri` is started again, as a
    /// call into its namespace would start it; one not started yet is started by the listing wait first.
    /// A plugin that never listed what it offers (it crashed before its first listing) is started
    /// again too, under the usual back-off and crash limit, to see whether it owns `uri`.
    /// Throws the plugin's error when it cannot run (`failed`, say); nil when no plugin owns `uri`;
    /// ``UnlistedPlugins`` when none does but a plugin that never listed could not be started.
    private func session(owning uri: String) async throws -> PluginSession? {
        for (_, session) in await runningPlugins() where session.offer.contains(uri) { return session }
        for plugin in plugins where plugin.offers(uri) {
            let session = try await plugin.session()
            if session.offer.contains(uri) { return session }
        }
        var down: [(plugin: Plugin, error: ResponseError)] = []
        for plugin in plugins where plugin.neverListed {
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

    private func runningPlugins() async -> [(Plugin, PluginSession)] {
        await settleForListing()
        return plugins.compactMap { plugin in plugin.runningSession.map { (plugin, $0) } }
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

/// Plugins that never listed what they offer and could not be started to tell, with why: one of them
/// may own the URI asked for.
public struct UnlistedPlugins: Error {
    public let plugins: [(plugin: Plugin, error: ResponseError)]
    init(_ plugins: [(plugin: Plugin, error: ResponseError)]) { self.plugins = plugins }
}
