import Jansson
import JSONRPC
import Logging
import Synchronization
import SwitchboardCore

/// One run of a plugin: its process, the JSON-RPC connection over its pipes (the host being the MCP
/// client), what it announced, and the calls in flight.
///
/// It ends when the plugin's stdout ends (it exited, crashed, or was stopped): every request still
/// waiting fails at once with the reason, then `onEnd` tells the plugin's supervisor (with this run, so
/// it knows what the run had announced).
final class PluginSession: Sendable {
    let manifest: PluginManifest
    let process: PluginProcess
    let connection: Connection
    let sink: FileDescriptorSink
    let stderr: StderrRelay
    let settings: PluginSettings
    let state = Mutex(State())
    let nextToken = Atomic<Int64>(1)
    /// The timer for the calls' time-outs is armed (``armTimeouts(at:)``).
    let timeoutsArmed = Atomic<Bool>(false)
    let onEnd: @Sendable (_ session: PluginSession, _ error: ResponseError, _ expected: Bool) -> Void
    let onChange: @Sendable (ChangeKind) -> Void

    /// What changed at the plugin, for pushes to the clients.
    enum ChangeKind: Sendable { case tools, resources, prompts, resourceUpdated(String) }

    struct State {
        var tools: [String: PluginTool] = [:]
        /// The `tools/list` items the tools were made from, to tell whether a new listing changed them.
        var toolItems: [JSONValue] = []
        var resources: [JSONValue] = []
        var templates: [JSONValue] = []
        /// MCP `Prompt` objects, under the plugin's own names.
        var prompts: [JSONValue] = []
        var capabilities: JSONValue = [:]
        /// Who the plugin said it is in its `initialize` answer.
        var server: PluginServerInfo?
        /// Progress tokens given to the plugin → the client's request.
        var progress: [String: RequestContext] = [:]
        /// Client subscriptions per resource URI subscribed at the plugin.
        var subscribers: [String: Int] = [:]
        var stopping = false
        var violation: String?
        /// The lists being read again after a `list_changed`, and those told changed again meanwhile.
        var refreshing: Set<ListKind> = []
        var stale: Set<ListKind> = []
        /// What was wrong with the last listing of each method (cut, items left out).
        var listingProblems: [String: String] = [:]
        /// Why the run ended, once it has: what later requests to it fail with.
        var endError: ResponseError?
    }

    /// MCP revisions the host accepts from a server; it asks for the first.
    static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

    private init(manifest: PluginManifest, process: PluginProcess, connection: Connection, sink: FileDescriptorSink, stderr: StderrRelay,
                 settings: PluginSettings, onChange: @escaping @Sendable (ChangeKind) -> Void,
                 onEnd: @escaping @Sendable (PluginSession, ResponseError, Bool) -> Void) {
        self.manifest = manifest
        self.process = process
        self.connection = connection
        self.sink = sink
        self.stderr = stderr
        self.settings = settings
        self.onChange = onChange
        self.onEnd = onEnd
    }

    var name: String { manifest.name }
    var tools: [String: PluginTool] { state.withLock { $0.tools } }
    /// The plugin's prompts (MCP `Prompt` objects, its own names).
    var prompts: [JSONValue] { state.withLock { $0.prompts } }
    /// Who the plugin said it is (`serverInfo`), when it said.
    var server: PluginServerInfo? { state.withLock { $0.server } }
    /// The tool called `name`, looked up without copying the table (every call asks).
    func tool(named name: String) -> PluginTool? { state.withLock { $0.tools[name] } }
    var resources: [JSONValue] { state.withLock { $0.resources } }
    var templates: [JSONValue] { state.withLock { $0.templates } }
    /// What the run announced, for routing by URI.
    var offer: ResourceOffer { state.withLock { ResourceOffer(resources: $0.resources, templates: $0.templates) } }
    /// Whether the run announced resources or templates (so starting or ending it changes `resources.list`).
    var offersResources: Bool { state.withLock { !$0.resources.isEmpty || !$0.templates.isEmpty } }
    var capabilities: JSONValue { state.withLock { $0.capabilities } }
    /// Why the run ended, once it has.
    var endError: ResponseError? { state.withLock { $0.endError } }

    // MARK: Start

    /// Spawns the plugin, connects to its pipes and runs the MCP handshake; throws the error a call
    /// should answer. `callbacks` is what the plugin's own requests reach (``PluginCallbacks``).
    static func start(_ manifest: PluginManifest, settings: PluginSettings, callbacks: PluginCallbacks,
                      onChange: @escaping @Sendable (ChangeKind) -> Void,
                      onEnd: @escaping @Sendable (PluginSession, ResponseError, Bool) -> Void) async throws -> PluginSession {
        let process: PluginProcess
        do {
            if let attach = settings.attach {
                process = try attach(manifest)
            } else {
                process = try await PluginProcess.spawn(manifest, sandbox: settings.sandbox, logger: settings.logger)
            }
        } catch let error as SpawnError {
            let details: JSONObject = error.reason == "sandboxUnavailable" ? ["kernel": .string(ConfinementSupport.kernelRelease)] : [:]
            throw PluginError.unavailable(manifest.name, reason: error.reason, message: error.description, details: details)
        } catch {
            throw PluginError.unavailable(manifest.name, reason: "startFailed", message: "\(error)")
        }
        if process.sandbox.status == nil {
            if process.isChild {
                settings.logger.warning("plugin \(manifest.name) runs UNCONFINED (sandbox false or --unconfined-plugin): it can read, write and reach whatever this user can")
            }
        } else if process.sandbox.status?.enforced == false {
            settings.logger.warning("plugin \(manifest.name) runs UNCONFINED: \(ConfinementSupport.unavailableReason ?? "no Landlock"), and --allow-unconfined-plugins was given")
        }
        var logger = settings.logger
        logger[metadataKey: "plugin"] = "\(manifest.name)"
        let stderr: StderrRelay
        let fdSink: FileDescriptorSink
        do {
            stderr = try StderrRelay(fd: process.errorFD, plugin: manifest.name, logger: settings.logger)
        } catch {
            let reason = process.abandon(closing: [process.inputFD, process.outputFD, process.errorFD], because: error)
            throw PluginError.unavailable(manifest.name, reason: "startFailed", message: reason.description)
        }
        do {
            // A write that finds its stdin closed (EPIPE) while it runs: no request will reach it again.
            fdSink = try FileDescriptorSink(fd: process.inputFD, limit: settings.limits.maxOutputBytes) {
                callbacks.link.session?.stdinClosed()
            }
        } catch {
            let reason = process.abandon(closing: [process.inputFD, process.outputFD], because: error)
            throw PluginError.unavailable(manifest.name, reason: "startFailed", message: reason.description)
        }
        let plugin = manifest.name
        let sink = ProtocolWatchSink(base: fdSink) { detail in
            callbacks.link.session?.breakProtocol(detail)
        } onStray: { [logger = settings.logger] skipped in
            let what = skipped == 1 ? "a line that is" : "\(skipped) lines that are"
            logger.warning("plugin \(plugin) wrote \(what) not JSON on its stdout: skipped (more than \(StrayLines.limit) a minute stop it)")
        }
        // The plugin's answers must always be read, also while its own calls into the host wait: past
        // the connection's slots and queue, its calls are refused, never left to stop the reader. Its
        // error answers are made its own here; the host's (time-outs, cancellations, its end) pass as they are.
        let connection = Connection(dispatcher: callbacks.dispatcher, limits: settings.limits, framing: .ndjson, sink: sink, logger: logger,
                                    admission: .refuse { method, limit in PluginError.busy(plugin, method: method, limit: limit) },
                                    loneSurrogates: .replace { [logger = settings.logger, throttle = Mutex(LogThrottle())] count in
                                        guard let count = throttle.withLock({ $0.record(count, at: monotonicNanoseconds()) }) else { return }
                                        let what = count == 1 ? "a lone UTF-16 surrogate escape" : "\(count) lone UTF-16 surrogate escapes"
                                        logger.warning("plugin \(plugin) wrote \(what) on its stdout: read as U+FFFD (logged at most once a minute)")
                                    },
                                    peerError: { [logger = settings.logger] in PluginError.answered(plugin, $0, logger: logger) })
        let session = PluginSession(manifest: manifest, process: process, connection: connection, sink: fdSink, stderr: stderr,
                                    settings: settings, onChange: onChange, onEnd: onEnd)
        callbacks.link.session = session
        do {
            try OSThread.detach(name: "sb-plugin-reader") { session.readOutput(into: MessageReader(connection: connection)) }
        } catch {
            let reason = process.abandon(closing: [process.outputFD], because: error)
            await session.stop()
            throw PluginError.unavailable(manifest.name, reason: "startFailed", message: reason.description)
        }
        do {
            try await session.handshake()
        } catch {
            await session.stop()
            throw error
        }
        return session
    }

    /// `initialize`, `notifications/initialized`, then what the plugin offers.
    private func handshake() async throws {
        let answer = try await request("initialize", params: [
            "protocolVersion": .string(Self.protocolVersions[0]),
            "capabilities": ["roots": ["listChanged": false]],
            "clientInfo": ["name": "switchboard", "version": "0.1.0"],
        ])
        guard let version = answer["protocolVersion"]?.stringValue, Self.protocolVersions.contains(version) else {
            let offered = answer["protocolVersion"]?.jsonText() ?? "none"
            breakProtocol("it answered initialize with protocol version \(JSONFieldError.excerpt(offered)), not one of \(Self.protocolVersions.joined(separator: ", "))")
            throw PluginError.unavailable(name, reason: "protocol", message: "unsupported MCP protocol version \(offered)")
        }
        let server = PluginServerInfo(answer["serverInfo"])
        state.withLock { state in
            state.capabilities = answer["capabilities"] ?? [:]
            state.server = server
        }
        connection.notify(method: "notifications/initialized", params: nil)
        try await refreshTools()
        if capabilities["resources"] != nil { try await refreshResources() }
        if capabilities["prompts"] != nil { try await refreshPrompts() }
    }

    var pid: Int32? { process.exitStatus == nil && process.isChild ? process.pid : nil }
}
