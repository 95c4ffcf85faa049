#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import Logging
@testable import PluginHost
import SchemaTesting
import SwitchboardHost
import Synchronization
import Testing

/// A client of a host in this process whose one plugin, `scripted` (namespace `peer`), is an
/// ``MCPPeer``: the host's methods and the plugin's, as the executable serves them, on a `Connection`
/// fed through its reader like stdin. Every answer is checked against its method's schema from the
/// host's own `rpc.discover`, which ``start(discover:)`` asks first (it starts the plugin).
final class PluginTestClient: Sendable {
    let peer: MCPPeer
    let supervisor: PluginSupervisor
    let connection: Connection
    /// Every message the host wrote to this client, in order.
    let messages = Inbox<JSONValue>()
    /// Every line the host logged, as `LEVEL message [plugin=NAME]`.
    let log: Inbox<String>
    private let reader: ReaderBox
    private let ledger = RequestLedger()
    private let schemas = Mutex<AnswerSchemas?>(nil)
    private let checked = Mutex(0)
    private let nextID = Atomic<Int64>(1)

    /// - Parameters:
    ///   - timeoutMilliseconds: the manifest's `timeoutMs`. By default ten minutes, not the manifests' 30 s: a
    ///     test that is not about the timeout must not meet it on a loaded machine (the handshake and calls
    ///     wait on the peer's answers, which a busy scheduler may delay for long).
    ///   - limits: the plugin connection's limits (the client's are the defaults).
    init(peer: MCPPeer, timeoutMilliseconds: Int = 600_000, maxCrashes: Int = 3, limits: ConnectionLimits = ConnectionLimits(),
         calls: [String] = []) throws {
        self.peer = peer
        let log = Inbox<String>()
        self.log = log
        let logger = Logger(label: "switchboard.tests") { _ in CapturingLogHandler(log) }
        var settings = PluginSettings(limits: limits, shutdownGraceMilliseconds: 2_000, maxCrashes: maxCrashes, logger: logger)
        settings.attach = { manifest in try peer.attach(manifest) }
        let manifest = PluginManifest(name: "scripted", version: "1.0.0", namespace: "peer", command: ["scripted-peer"], cwd: "/",
                                      timeoutMilliseconds: timeoutMilliseconds, calls: calls, origin: "test")
        supervisor = PluginSupervisor(configuration: PluginConfiguration(entries: [.valid(manifest)]), settings: settings)
        var registry = MethodRegistry.hostMethods()
        registry.add(.pluginMethods(supervisor))
        registry.route(to: supervisor.router)
        let dispatcher = try registry.freeze()
        let messages = self.messages
        let pending = Mutex<[UInt8]>([])
        let sink = CollectingSink { bytes in
            let lines: [[UInt8]] = pending.withLock { buffer in
                buffer += bytes
                var lines: [[UInt8]] = []
                while let newline = buffer.firstIndex(of: 0x0A) {
                    lines.append(Array(buffer[..<newline]))
                    buffer.removeSubrange(...newline)
                }
                return lines
            }
            for line in lines { messages.append((try? JSONValue(parsing: line)) ?? .string(String(decoding: line, as: UTF8.self))) }
        }
        connection = Connection(dispatcher: dispatcher, framing: .ndjson, sink: sink, logger: logger)
        reader = ReaderBox(MessageReader(connection: connection))
        supervisor.attach(client: connection)
    }

    /// Waits for the plugin's first start to end (running, or failed), however long it takes on a
    /// loaded machine (a listing waits only `--plugin-wait`), then asks `rpc.discover` for the schemas
    /// every later answer is checked against.
    func start() async throws {
        _ = try? await supervisor.plugins.first?.session()
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        try await send(["jsonrpc": "2.0", "id": .integer(id), "method": "rpc.discover"], record: false)
        let answer = try await messages.first("rpc.discover's answer") { $0["id"] == .integer(id) && $0["method"] == nil }
        schemas.withLock { $0 = try? AnswerSchemas(openRPC: answer["result"] ?? .null) }
        #expect(schemas.withLock { $0 } != nil, "rpc.discover: \(answer.jsonText())")
    }

    /// Stops the plugin as the host does at exit, then checks the answers not checked yet.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        await supervisor.shutdown()
        expectValidAnswers(sourceLocation: sourceLocation)
    }

    // MARK: Input

    /// Feeds `message` as one line through the reader, on a thread of its own (it may block there).
    func send(_ message: JSONValue, record: Bool = true) async throws {
        if record { ledger.recordOutgoing(message) }
        let bytes = Array((message.jsonText() + "\n").utf8)
        let reader = self.reader
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            do {
                try OSThread.detach(name: "test-input") {
                    reader.receive(bytes)
                    continuation.resume()
                }
            } catch {
                Issue.record("\(error)")
                continuation.resume()
            }
        }
    }

    /// Sends a request with a fresh id; returns the id.
    @discardableResult
    func request(_ method: String, _ params: JSONValue? = nil, meta: JSONValue? = nil) async throws -> JSONValue {
        let id = JSONValue.integer(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
        var message: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        var params = params?.objectValue
        if let meta {
            params = params ?? [:]
            params?["_meta"] = meta
        }
        if let params { message["params"] = .object(params) }
        try await send(.object(message))
        return id
    }

    /// The single response to `id`, once it came, checked against its method's schema.
    func response(to id: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let answer = try await messages.first("the response to \(id.jsonText())") { $0["id"] == id && $0["method"] == nil }
        expectValidAnswers(sourceLocation: sourceLocation)
        return answer
    }

    /// Sends a request and waits for its response.
    func call(_ method: String, _ params: JSONValue? = nil, meta: JSONValue? = nil,
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        try await response(to: try await request(method, params, meta: meta), sourceLocation: sourceLocation)
    }

    /// The `skipping + 1`-th notification `method` the host pushed.
    func notification(_ method: String, skipping: Int = 0) async throws -> JSONValue {
        let found = try await messages.wait(for: "\(method) #\(skipping + 1) to the client") { messages in
            let matching = messages.filter { $0["method"]?.stringValue == method && $0["id"] == nil }
            return matching.dropFirst(skipping).first
        }
        expectValidAnswers()
        return found
    }

    /// The first log line containing `text`.
    func logLine(containing text: String) async throws -> String {
        try await log.first("a log line with \"\(text)\"") { $0.contains(text) }
    }

    /// Checks every message not checked yet against the schemas (each once).
    func expectValidAnswers(sourceLocation: SourceLocation = #_sourceLocation) {
        let all = messages.items
        guard let schemas = schemas.withLock({ $0 }) else { return }
        checked.withLock { count in
            for message in all.dropFirst(count) {
                for problem in ledger.problems(inIncoming: message, schemas: schemas) {
                    Issue.record("answer does not match its schema: \(problem)\n  in \(message.jsonText())", sourceLocation: sourceLocation)
                }
            }
            count = max(count, all.count)
        }
    }
}

/// The connection's reader, fed from one thread at a time.
private final class ReaderBox: @unchecked Sendable {
    private let lock = ConditionLock()
    private let reader: MessageReader

    init(_ reader: MessageReader) { self.reader = reader }

    func receive(_ bytes: [UInt8]) {
        lock.withLock { bytes.withUnsafeBytes { reader.receive($0) } }
    }
}

/// A log handler that keeps every line in an ``Inbox``, as `LEVEL message [key=value …]`.
struct CapturingLogHandler: LogHandler {
    let lines: Inbox<String>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    init(_ lines: Inbox<String>) { self.lines = lines }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let tags = all.keys.sorted().map { "\($0)=\(all[$0].map { "\($0)" } ?? "")" }.joined(separator: " ")
        lines.append("\(event.level) \(event.message)" + (tags.isEmpty ? "" : " [\(tags)]"))
    }
}
