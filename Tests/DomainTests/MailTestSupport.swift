import GRDB
import Jansson
import JSONRPC
import Logging
import MailDomain
import PostgresTesting
import SchemaTesting
import SwitchboardCore
import SwitchboardPostgres
import SwitchboardStorage
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Support for the mail tests: both services built alike, an async JSON-RPC client over an in-process
// `Connection` (one per simulated client, so session binding can be tested), and temporary files.

/// The clock of every mail test: `--now 2026-01-01T09:00:00Z`.
let mailTestClock = FixedClock(milliseconds: Timestamp.parse("2026-01-01T09:00:00Z")!)

/// The implementations the shared suite runs against.
enum MailBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `sqliteFile`: a file in WAL mode, where reads use each thread's own connection. `postgres`: a
    /// fresh database on the test server (its suite needs the `.postgresStores` trait; the case is
    /// skipped when there is no test server).
    case memory, sqlite, sqliteFile, postgres

    var testDescription: String { rawValue }

    /// A service holding `messages` demo messages.
    func make(messages: Int = 150) async throws -> any MailService {
        switch self {
        case .memory:
            return InMemoryMailService(clock: mailTestClock, demoMessages: messages)
        case .sqlite:
            let database = try AppDatabase(path: ":memory:", migrations: SQLiteMailService.migrations)
            try await database.writer.write { db in try SQLiteMailService.seed(db, clock: mailTestClock, messages: messages) }
            return SQLiteMailService(database: database, clock: mailTestClock)
        case .sqliteFile:
            let database = try AppDatabase(path: temporaryDatabasePath(), migrations: SQLiteMailService.migrations)
            try await database.writer.write { db in try SQLiteMailService.seed(db, clock: mailTestClock, messages: messages) }
            return SQLiteMailService(database: database, clock: mailTestClock)
        case .postgres:
            let store = try await PostgresTestStores.open(migrations: [PostgresMailService.migrations])
            try await store.write { try await PostgresMailService.seed($0, clock: mailTestClock, messages: messages, logger: TestPostgres.logger) }
            return PostgresMailService(store: store, clock: mailTestClock)
        }
    }
}

/// A new database file in this test process's scratch folder (removed at exit, not by the test: a
/// database's reading connections open it by path for as long as it is in use).
func temporaryDatabasePath() -> String {
    TestScratch.path("\(temporaryDatabaseCount.add(1, ordering: .relaxed).newValue).sqlite")
}

private let temporaryDatabaseCount = Atomic<Int>(0)

/// A JSON-RPC client in this process: its own `Connection` (and so its own session) on a shared
/// dispatcher. Requests go through the reader as bytes; responses are awaited, never polled.
final class MailRPCClient: Sendable {
    struct TimedOut: Error, CustomStringConvertible {
        let method: String
        var description: String { "no response to \(method) within \(hangGuardSeconds) s" }
    }

    let connection: Connection
    private let reader: Mutex<ReaderHandle>
    private let inbox = MailClientInbox()

    init(_ dispatcher: Dispatcher) {
        let inbox = self.inbox
        let sink = CollectingSink { bytes in inbox.deliver(bytes) }
        connection = Connection(dispatcher: dispatcher, framing: .ndjson, sink: sink,
                                logger: Logger(label: "mail.tests") { _ in SwiftLogNoOpLogHandler() })
        reader = Mutex(ReaderHandle(reader: MessageReader(connection: connection)))
    }

    /// Sends a request and returns the whole response message, checked against the method's result
    /// schema (or the error shape) from `rpc.discover`.
    func call(_ method: String, _ params: JSONValue? = nil, progressToken: JSONValue? = nil,
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let id = send(method, params, progressToken: progressToken)
        return try await response(to: id, answering: method, sourceLocation: sourceLocation)
    }

    /// Sends a request without waiting for its answer; returns its id.
    func send(_ method: String, _ params: JSONValue? = nil, progressToken: JSONValue? = nil) -> Int64 {
        let id = inbox.nextID()
        var request: JSONObject = ["jsonrpc": "2.0", "id": .integer(id), "method": .string(method)]
        var params = params
        if let progressToken {
            var body = params?.objectValue ?? [:]
            body["_meta"] = ["progressToken": progressToken]
            params = .object(body)
        }
        if let params { request["params"] = params }
        receive(.object(request))
        return id
    }

    /// Sends a notification (`$/cancelRequest`, …).
    func notify(_ method: String, _ params: JSONValue) {
        receive(["jsonrpc": "2.0", "method": .string(method), "params": params])
    }

    private func receive(_ message: JSONValue) {
        let frame = Array(message.jsonText().utf8) + [0x0A]
        reader.withLock { handle in frame.withUnsafeBytes { handle.reader.receive($0) } }
    }

    /// The answer to request `id`, checked as ``call(_:_:progressToken:sourceLocation:)`` checks it.
    func response(to id: Int64, answering method: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let inbox = self.inbox
        let timer = Task {
            // A hang guard only, generous for a loaded machine.
            guard (try? await Task.sleep(for: .seconds(hangGuardSeconds))) != nil else { return }
            inbox.expire(id, TimedOut(method: method))
        }
        defer { timer.cancel() }
        let response = try await inbox.response(to: id)
        DomainSchemas.expectValid(response, answering: method, sourceLocation: sourceLocation)
        return response
    }

    /// The `result` of a call, or a test failure showing the error.
    func result(_ method: String, _ params: JSONValue? = nil, progressToken: JSONValue? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let response = try await call(method, params, progressToken: progressToken, sourceLocation: sourceLocation)
        return try #require(response["result"], "\(method) failed: \(response.jsonText())", sourceLocation: sourceLocation)
    }

    /// The `error` of a call, or a test failure showing the result.
    func error(_ method: String, _ params: JSONValue? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let response = try await call(method, params, sourceLocation: sourceLocation)
        return try #require(response["error"], "\(method) should fail: \(response.jsonText())", sourceLocation: sourceLocation)
    }

    /// Notifications received so far (progress, …), in order.
    var notifications: [JSONValue] { inbox.notifications }
}

/// What a ``MailRPCClient`` received: responses by id (handed to whoever awaits them) and notifications.
private final class MailClientInbox: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var responses: [Int64: JSONValue] = [:]
        var waiters: [Int64: CheckedContinuation<JSONValue, any Error>] = [:]
        var notifications: [JSONValue] = []
        var nextID: Int64 = 1
    }

    private let state = Mutex(State())

    func nextID() -> Int64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    var notifications: [JSONValue] { state.withLock { $0.notifications } }

    /// Takes output bytes (NDJSON frames), resuming the waiters of the responses in them.
    func deliver(_ bytes: [UInt8]) {
        let ready: [(CheckedContinuation<JSONValue, any Error>, JSONValue)] = state.withLock { state in
            state.buffer += bytes
            var ready: [(CheckedContinuation<JSONValue, any Error>, JSONValue)] = []
            while let newline = state.buffer.firstIndex(of: 0x0A) {
                let line = Array(state.buffer[..<newline])
                state.buffer.removeFirst(newline + 1)
                guard let message = try? JSONValue(parsing: line) else { continue }
                if message["method"] != nil {
                    state.notifications.append(message)
                } else if let id = message["id"]?.int64Value {
                    if let waiter = state.waiters.removeValue(forKey: id) {
                        ready.append((waiter, message))
                    } else {
                        state.responses[id] = message
                    }
                }
            }
            return ready
        }
        for (waiter, message) in ready { waiter.resume(returning: message) }
    }

    func response(to id: Int64) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            let early = state.withLock { state -> JSONValue? in
                if let response = state.responses.removeValue(forKey: id) { return response }
                state.waiters[id] = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    func expire(_ id: Int64, _ error: any Error) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: error)
    }
}

/// The reader, which one thread at a time may drive: the client's lock provides that.
private struct ReaderHandle: @unchecked Sendable {
    let reader: MessageReader
}

/// A dispatcher with the mail methods on `mail`.
/// `readRoots`: the folders `mail.import` may read (by default /tmp, where ``MailTempFile`` writes).
func mailDispatcher(_ mail: any MailService, defaultAccount: String? = DemoAccount.email,
                    readRoots: ReadRoots? = nil) throws -> Dispatcher {
    try MethodRegistry.mailMethods(mail, defaultAccount: defaultAccount, clock: mailTestClock,
                                   readRoots: readRoots ?? ReadRoots(resolving: ["/tmp"])).freeze()
}

/// A temporary file holding `text`, removed by `remove()`.
struct MailTempFile: Sendable {
    let path: String

    private static let counter = Mutex(0)

    init(_ text: String, name: String = "import") {
        let number = Self.counter.withLock { value in
            value += 1
            return value
        }
        path = TestScratch.path("mail-\(number)-\(name).json")
        let file = fopen(path, "wb")!
        _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        fclose(file)
    }

    func remove() { unlink(path) }
}

/// The prototype backend's format: `{"inbox": [records]}`.
func prototypeInbox(_ records: [JSONValue]) -> String {
    JSONValue.object(["inbox": .array(records)]).jsonText()
}

/// One record of the prototype's format.
func prototypeRecord(uid: String, from: String = "matt@gmail.com", to: String = DemoAccount.email, subject: String = "subject",
                     text: String = "Lorem ipsum dolor sit amet.", responseToUid: String = "", dateTime: String = "Today") -> JSONValue {
    ["uid": .string(uid), "from": .string(from), "to": .string(to), "subject": .string(subject), "text": .string(text),
     "responseToUid": .string(responseToUid), "dateTime": .string(dateTime)]
}

extension JSONValue {
    /// The string members `key` of the objects of an array (e.g. the thread ids of a page's items).
    func strings(_ key: String) -> [String] {
        (arrayValue ?? []).compactMap { $0[key]?.stringValue }
    }
}

extension [JSONValue] {
    /// The string members `key` of these objects.
    func strings(_ key: String) -> [String] {
        compactMap { $0[key]?.stringValue }
    }
}
