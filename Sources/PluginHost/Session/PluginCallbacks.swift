import Jansson
import JSONRPC
import Logging
import Synchronization

/// What a plugin's own messages reach on its connection: MCP's client-side requests (`ping`,
/// `roots/list`), its notifications (progress, list changes, log messages), and — the switchboard
/// extension — host methods, limited to the manifest's `calls`.
///
/// Callbacks run in the plugin connection's own slots, never the client's: a tool call waiting for
/// its plugin's callback cannot starve it. `sampling/createMessage`, `elicitation/create` and other
/// client features the host does not offer answer `-32601`.
final class PluginCallbacks: Sendable {
    let link = SessionLink()
    let dispatcher: Dispatcher

    init(manifest: PluginManifest, host: HostTable, logger: Logger) throws {
        var registry = MethodRegistry()
        registry.registerImmediate(MCPPing.self) { _, _ in [:] }
        registry.registerImmediate(MCPRootsList.self) { _, _ in ["roots": []] }
        let link = self.link
        registry.registerNotification(MCPProgress.self) { params, _ in link.session?.forwardProgress(params) }
        registry.registerNotification(MCPToolsListChanged.self) { _, _ in link.session?.listChanged(.tools) }
        registry.registerNotification(MCPResourcesListChanged.self) { _, _ in link.session?.listChanged(.resources) }
        registry.registerNotification(MCPPromptsListChanged.self) { _, _ in link.session?.listChanged(.prompts) }
        registry.registerNotification(MCPResourceUpdated.self) { params, _ in
            if let uri = params["uri"]?.stringValue { link.session?.listChanged(.resourceUpdated(uri)) }
        }
        registry.registerNotification(MCPLogMessage.self) { params, _ in
            let text = params["data"].map { $0.stringValue ?? $0.jsonText() } ?? ""
            logger.notice("\(manifest.name) (\(LogText.escaped(params["level"]?.stringValue ?? "info", limit: 20))): \(LogText.escaped(text))")
        }
        registry.route(to: CallbackRouter(plugin: manifest.name, allowed: manifest.calls, host: host, logger: logger))
        dispatcher = try registry.freeze()
    }
}

/// The session a plugin's callbacks act on, set once it exists (weakly: the session owns them).
final class SessionLink: Sendable {
    private struct Weak: @unchecked Sendable { weak var session: PluginSession? }
    private let current = Mutex(Weak())

    var session: PluginSession? {
        get { current.withLock { $0.session } }
        set { current.withLock { $0.session = newValue } }
    }
}

/// The host as callbacks see it, set once the client connects: its method table, and the session of
/// the client the plugins serve, which callbacks act for (the account it signed in, …).
final class HostTable: Sendable {
    private let client = Mutex<(dispatcher: Dispatcher, session: ConnectionSession)?>(nil)

    func set(_ table: Dispatcher, session: ConnectionSession) { client.withLock { $0 = (table, session) } }
    func clear() { client.withLock { $0 = nil } }
    /// The host method `name`, acting for the client's session.
    func entry(named name: String) -> MethodEntry? {
        guard let client = client.withLock({ $0 }), let entry = client.dispatcher.entry(named: name) else { return nil }
        let session = client.session
        return entry.acting { session }
    }
}

/// Host methods for a plugin's requests: those its `calls` allow (`calendar.agenda`, `feed.*`), run
/// for the client's session (``HostTable``), in the plugin connection's slots; any other host method is refused with `-32072` `{plugin, reason: "forbidden", method, allowed}`.
struct CallbackRouter: MethodRouter {
    let plugin: String
    let allowed: [String]
    let host: HostTable
    let logger: Logger

    func entry(named name: String) -> MethodEntry? {
        // MCP's client features (sampling/createMessage, elicitation/create, …) are not offered.
        if name.contains("/") { return nil }
        guard Self.isCallable(name), Self.matches(name, allowed) else {
            let (plugin, allowed, logger) = (plugin, allowed, logger)
            return .dynamic(name: name, summary: "Refused: outside the plugin's calls.") { _, _ in
                let why = CallbackRouter.isCallable(name) ? "which its calls do not allow" : "which is no namespace.method host method"
                logger.warning("plugin \(plugin) called \(LogText.escaped(name, limit: JSONFieldError.quoteLimit)), \(why); refused")
                throw PluginError.forbidden(plugin, method: name, allowed: allowed)
            }
        }
        return host.entry(named: name)
    }

    /// Only `namespace.verb` methods are callbacks: `initialize`, `shutdown` and `exit` act on the
    /// connection they arrive on, so a plugin's `exit` under `calls: ["*"]` ended its own connection's
    /// reading (every later call to it timed out) and its `shutdown` refused its next callbacks.
    static func isCallable(_ name: String) -> Bool {
        name.contains(".") && !name.hasPrefix("$/")
    }

    var entries: [MethodEntry] { [] }
    var namespaces: [String] { [] }
    func methodDescription(named name: String) -> JSONValue? { nil }

    /// `calendar.agenda` matches itself; `feed.*` every method of `feed`; `*` everything.
    static func matches(_ method: String, _ patterns: [String]) -> Bool {
        patterns.contains { pattern in
            if pattern == "*" { return true }
            if pattern.hasSuffix(".*") { return method.hasPrefix(pattern.dropLast()) }
            return pattern == method
        }
    }
}
