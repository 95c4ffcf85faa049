#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import Logging
import Synchronization

/// One run of a plugin: its process, the JSON-RPC connection over its pipes (the host being the MCP
/// client), what it announced, and the calls in flight.
///
/// It ends when the plugin's stdout ends (it exited, crashed, or was stopped): every request still
/// waiting fails at once with the reason, then `onEnd` tells the plugin's supervisor.
final class PluginSession: Sendable {
    let manifest: PluginManifest
    let process: PluginProcess
    let connection: Connection
    private let sink: FileDescriptorSink
    private let stderr: StderrRelay
    private let settings: PluginSettings
    private let state = Mutex(State())
    private let nextToken = Atomic<Int64>(1)
    private let onEnd: @Sendable (_ error: ResponseError, _ expected: Bool) -> Void
    private let onChange: @Sendable (ChangeKind) -> Void

    /// What changed at the plugin, for pushes to the clients.
    enum ChangeKind: Sendable { case tools, resources, resourceUpdated(String) }

    private struct State {
        var tools: [String: PluginTool] = [:]
        var resources: [JSONValue] = []
        var templates: [JSONValue] = []
        var capabilities: JSONValue = [:]
        /// Progress tokens given to the plugin → the client's request.
        var progress: [String: RequestContext] = [:]
        var stopping = false
        var violation: String?
        /// Why the run ended, once it has: what later requests to it fail with.
        var endError: ResponseError?
    }

    /// MCP revisions the host accepts from a server; it asks for the first.
    static let protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

    private init(manifest: PluginManifest, process: PluginProcess, connection: Connection, sink: FileDescriptorSink, stderr: StderrRelay,
                 settings: PluginSettings, onChange: @escaping @Sendable (ChangeKind) -> Void,
                 onEnd: @escaping @Sendable (ResponseError, Bool) -> Void) {
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
    var resources: [JSONValue] { state.withLock { $0.resources } }
    var templates: [JSONValue] { state.withLock { $0.templates } }
    var capabilities: JSONValue { state.withLock { $0.capabilities } }

    // MARK: Start

    /// Spawns the plugin, connects to its pipes and runs the MCP handshake; throws the error a call
    /// should answer. `callbacks` is what the plugin's own requests reach (``PluginCallbacks``).
    static func start(_ manifest: PluginManifest, settings: PluginSettings, callbacks: PluginCallbacks,
                      onChange: @escaping @Sendable (ChangeKind) -> Void,
                      onEnd: @escaping @Sendable (ResponseError, Bool) -> Void) async throws -> PluginSession {
        let process: PluginProcess
        do {
            process = try await PluginProcess.spawn(manifest)
        } catch {
            throw PluginError.unavailable(manifest.name, reason: "startFailed", message: error.description)
        }
        var logger = settings.logger
        logger[metadataKey: "plugin"] = "\(manifest.name)"
        let stderr = StderrRelay(fd: process.errorFD, plugin: manifest.name, logger: settings.logger)
        let fdSink = FileDescriptorSink(fd: process.inputFD, limit: settings.limits.maxOutputBytes)
        let sink = ProtocolWatchSink(base: fdSink) { detail in callbacks.link.session?.breakProtocol(detail) }
        let connection = Connection(dispatcher: callbacks.dispatcher, limits: settings.limits, framing: .ndjson, sink: sink, logger: logger)
        let session = PluginSession(manifest: manifest, process: process, connection: connection, sink: fdSink, stderr: stderr,
                                    settings: settings, onChange: onChange, onEnd: onEnd)
        callbacks.link.session = session
        OSThread.detach(name: "sb-plugin-reader") { session.readOutput(into: MessageReader(connection: connection)) }
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
        state.withLock { $0.capabilities = answer["capabilities"] ?? [:] }
        connection.notify(method: "notifications/initialized", params: nil)
        try await refreshTools()
        if capabilities["resources"] != nil { try await refreshResources() }
    }

    /// Reads `tools/list`, every page.
    func refreshTools() async throws {
        let items = try await listAll("tools/list", member: "tools")
        var tools: [String: PluginTool] = [:]
        for item in items {
            if let tool = PluginTool(item) { tools[tool.name] = tool }
        }
        state.withLock { $0.tools = tools }
    }

    /// Reads `resources/list` and `resources/templates/list`, every page.
    func refreshResources() async throws {
        let resources = try await listAll("resources/list", member: "resources")
        let templates = (try? await listAll("resources/templates/list", member: "resourceTemplates")) ?? []
        state.withLock {
            $0.resources = resources
            $0.templates = templates
        }
    }

    /// A paginated MCP list, at most 100 pages.
    private func listAll(_ method: String, member: String) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        var cursor: JSONValue?
        for _ in 0..<100 {
            let page = try await request(method, params: cursor.map { ["cursor": $0] } ?? [:])
            items += page[member]?.arrayValue ?? []
            guard let next = page["nextCursor"], next.stringValue != nil else { break }
            cursor = next
        }
        return items
    }

    // MARK: Requests to the plugin

    /// Sends `method` and waits for the answer, within the manifest's time-out; cancelling the task
    /// cancels the request (`-32800` now, `notifications/cancelled` to the plugin).
    func request(_ method: String, params: JSONValue) async throws -> JSONValue {
        let id: Int64
        do {
            id = try await connection.startRequest(method: method, params: params)
        } catch {
            throw state.withLock { $0.endError } ?? error
        }
        let timeout = manifest.timeoutMilliseconds
        let connection = self.connection
        let plugin = name
        let timer = DeadlineWatch.shared.schedule(in: timeout) {
            connection.abandonRequest(id, with: PluginError.timeout(plugin, milliseconds: timeout))
            connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "timeout"])
        }
        defer { DeadlineWatch.shared.cancel(timer) }
        do {
            return try await withTaskCancellationHandler {
                try await connection.response(to: id)
            } onCancel: {
                connection.abandonRequest(id, with: .cancelled)
                connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "cancelled by the client"])
            }
        } catch let error as ResponseError {
            if error.data?["plugin"] != nil || error.code == .requestCancelled { throw error }
            throw PluginError.fromPlugin(plugin, error)
        }
    }

    /// Calls tool `tool` for a client's request: checks the arguments, passes the progress token on,
    /// and turns the MCP result into the method's result.
    func callTool(_ tool: PluginTool, arguments: JSONValue?, context: RequestContext) async throws -> JSONValue {
        let arguments = arguments ?? [:]
        guard arguments.objectValue != nil else {
            throw ResponseError.invalidParams(JSONFieldError(field: "", expected: "object (named params)", got: JSONFieldError.excerpt(arguments.jsonText())))
        }
        try tool.validate(arguments.withoutMeta)
        var params: JSONObject = ["name": .string(tool.name), "arguments": arguments.withoutMeta]
        var token: String?
        if context.progressToken != nil {
            let issued = "p\(nextToken.wrappingAdd(1, ordering: .relaxed).oldValue)"
            token = issued
            state.withLock { $0.progress[issued] = context }
            params["_meta"] = ["progressToken": .string(issued)]
        }
        defer { if let token { _ = state.withLock { $0.progress.removeValue(forKey: token) } } }
        let result = try await request("tools/call", params: .object(params))
        if result["isError"]?.boolValue == true {
            throw PluginError.toolError(name, tool: tool.name, content: result["content"] ?? [])
        }
        if let structured = result["structuredContent"] { return structured }
        return ["content": result["content"] ?? []]
    }

    /// `notifications/progress` from the plugin: reaches the client as `$/progress` with its own token.
    func forwardProgress(_ params: JSONValue?) {
        guard let token = params?["progressToken"].map(Self.tokenText), let context = state.withLock({ $0.progress[token] }) else { return }
        var value: JSONObject = [:]
        for member in ["progress", "total", "message"] {
            if let item = params?[member] { value[member] = item }
        }
        context.reportProgress(.object(value))
    }

    private static func tokenText(_ value: JSONValue) -> String { value.stringValue ?? value.jsonText() }

    /// A notification that the plugin's tools or resources changed: read them again, then tell clients.
    func listChanged(_ kind: ChangeKind) {
        Task {
            switch kind {
            case .tools: try? await refreshTools()
            case .resources: try? await refreshResources()
            case .resourceUpdated: break
            }
            onChange(kind)
        }
    }

    // MARK: End

    /// Reads the plugin's stdout until it ends, then fails what waits with the reason and reports.
    private func readOutput(into reader: MessageReader) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let fd = process.outputFD
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { reader.receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        close(fd)
        // Its stdout is closed: it is ending, or will be made to.
        var status = process.waitBlocking(milliseconds: settings.shutdownGraceMilliseconds)
        if status == nil {
            process.signalGroup(SIGKILL)
            status = process.waitBlocking(milliseconds: 60_000)
        }
        let (expected, violation) = state.withLock { ($0.stopping, $0.violation) }
        let tail = stderr.lastLines(waitingUpTo: 500)
        let error: ResponseError
        if let violation {
            error = PluginError.protocolViolation(name, detail: violation, status: status, stderrTail: tail)
        } else if expected {
            error = PluginError.unavailable(name, reason: "stopped", message: "the plugin was stopped")
        } else {
            error = PluginError.crashed(name, status: status ?? .signaled(SIGKILL), stderrTail: tail)
        }
        state.withLock { $0.endError = error }
        // The supervisor learns first, so a call made once these are answered starts a new run.
        onEnd(error, expected && violation == nil)
        connection.closeOutgoing(failing: error)
        reader.finishInput()
        sink.close()
        if !expected || violation != nil {
            settings.logger.warning("plugin \(name): \(error.message)")
        }
    }

    /// The plugin wrote something that is not JSON-RPC, or too much at once: stop it.
    func breakProtocol(_ detail: String) {
        let first = state.withLock { state in
            defer { if state.violation == nil { state.violation = detail } }
            return state.violation == nil
        }
        guard first else { return }
        settings.logger.warning("plugin \(name) broke the protocol: \(detail); stopping it")
        process.signalGroup(SIGKILL)
    }

    /// Stops the plugin: closes its stdin, waits the grace time, then SIGTERM, then SIGKILL.
    func stop() async {
        state.withLock { $0.stopping = true }
        sink.close()
        _ = await process.terminate(graceMilliseconds: settings.shutdownGraceMilliseconds)
    }

    var pid: Int32? { process.exitStatus == nil ? process.pid : nil }
}

extension JSONValue {
    /// The value without a top-level `_meta` member (MCP's, never a tool argument).
    var withoutMeta: JSONValue {
        guard var object = objectValue, object["_meta"] != nil else { return self }
        object["_meta"] = nil
        return .object(object)
    }
}
