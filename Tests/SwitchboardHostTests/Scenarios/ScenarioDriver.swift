import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Jansson
import JSONRPC
import Logging
import SchemaTesting
@testable import switchboard
import SwitchboardHost
import Synchronization
import Testing

/// What a domain scenario does to a host, whichever host it is: the same story runs in this process
/// (``InProcessScenarioDriver``, on the executable's own method registry) and against the built binary
/// over pipes (``BinaryScenarioDriver``). Every answer either sees is checked against its method's
/// schema from that host's `rpc.discover` (the harnesses do it); waits are for messages, never for time.
protocol ScenarioDriver: AnyObject, Sendable {
    /// Sends a request and returns its whole response.
    func call(_ method: String, _ params: JSONValue?) async throws -> JSONValue
    /// The next push of `method` not returned before (in the order the host sent them).
    func push(_ method: String) async throws -> JSONValue
    /// Ends the session (end of input) and returns everything the host logged.
    func finish() async throws -> String
}

extension ScenarioDriver {
    /// The result of a call that must succeed.
    func result(_ method: String, _ params: JSONValue? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let response = try await call(method, params)
        #expect(response["error"] == nil, "\(method) failed: \(response.jsonText())", sourceLocation: sourceLocation)
        return try #require(response["result"], sourceLocation: sourceLocation)
    }
}

/// The two ways to run a scenario.
enum ScenarioHost: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inProcess = "in-process"
    case binary

    var testDescription: String { rawValue }

    /// The options both hosts run with: the binary's arguments, which the in-process host parses alike.
    static let storeArguments = ["--backend", "memory", "--feed-items", "10", "--mail-messages", "20", "--now", "2026-01-01T09:00:00Z"]

    func start() async throws -> any ScenarioDriver {
        switch self {
        case .inProcess: try await InProcessScenarioDriver()
        case .binary: try BinaryScenarioDriver()
        }
    }
}

/// A scenario in this process: the executable's registry (``HostRegistry``) on the store the binary's
/// options describe, in an in-process ``Harness``; the log at trace level, captured.
final class InProcessScenarioDriver: ScenarioDriver, @unchecked Sendable {
    private let harness: Harness
    private let logged = LogLines()
    private let nextID = Mutex(0)
    private let pushesTaken = Mutex<[String: Int]>([:])

    init() async throws {
        let store = try StoreOptions.parse(ScenarioHost.storeArguments).configuration
        let lines = logged
        var logger = Logger(label: "switchboard.scenario") { _ in LineCollector(lines: lines) }
        logger.logLevel = .trace
        let registry = HostRegistry.make(services: DomainServices(options: store, logger: logger))
        let discover = await InProcessCall.call("rpc.discover", params: nil, dispatcher: try registry.freeze(), logger: logger)
        let schemas = Result<AnswerSchemas, any Error> { try AnswerSchemas(openRPC: discover.result ?? .null) }
        harness = try Harness(methods: (registry, schemas), logger: logger)
    }

    func call(_ method: String, _ params: JSONValue?) async throws -> JSONValue {
        let id = nextID.withLock { id in
            id += 1
            return id
        }
        return try await harness.call(method, params: params, id: .integer(Int64(id))).json
    }

    func push(_ method: String) async throws -> JSONValue {
        let taken = pushesTaken.withLock { $0[method, default: 0] }
        let frame = try await harness.frames.wait(for: "push \(method) #\(taken + 1)") { frames in
            let matching = frames.filter { $0.method == method && $0.id == nil }
            return matching.count > taken ? matching[taken] : nil
        }
        harness.expectValidAnswers()
        pushesTaken.withLock { $0[method, default: 0] += 1 }
        return frame.json
    }

    func finish() async throws -> String {
        try await harness.finishInput()
        try await harness.waitUntilIdle()
        return logged.text
    }
}

/// Every line logged in a scenario.
private final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

/// Keeps every log line (level, message, metadata) for the scenario to look through.
private struct LineCollector: LogHandler {
    let lines: LogLines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
    }
}

/// A scenario against the built binary, `serve` with ``ScenarioHost/storeArguments`` at trace level,
/// over real pipes. Blocking waits: the suite runs off the cooperative pool.
final class BinaryScenarioDriver: ScenarioDriver, @unchecked Sendable {
    private let host: SpawnedHost
    private var nextID = 0
    /// Pushes read while waiting for an answer, not yet returned by ``push(_:)``.
    private var unread: [JSONValue] = []

    init() throws {
        host = try SpawnedHost(arguments: ScenarioHost.storeArguments + ["--log-level", "trace"])
    }

    func call(_ method: String, _ params: JSONValue?) async throws -> JSONValue {
        nextID += 1
        var request: JSONObject = ["jsonrpc": "2.0", "id": .integer(Int64(nextID)), "method": .string(method)]
        if let params { request["params"] = params }
        try host.send(JSONValue.object(request).jsonText())
        let (response, before) = try host.response(to: .integer(Int64(nextID)))
        unread += before
        return response
    }

    func push(_ method: String) async throws -> JSONValue {
        if let index = unread.firstIndex(where: { $0["method"]?.stringValue == method && $0["id"] == nil }) {
            return unread.remove(at: index)
        }
        while true {
            let message = try host.nextMessage()
            if message["method"]?.stringValue == method, message["id"] == nil { return message }
            unread.append(message)
        }
    }

    func finish() async throws -> String {
        host.closeInput()
        try host.readToEndOfOutput()
        #expect(try host.waitForExit() == .exited(0))
        return host.stderrText
    }
}
