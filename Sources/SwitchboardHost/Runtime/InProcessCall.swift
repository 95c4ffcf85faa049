import Jansson
import JSONRPC
import Logging
import Synchronization

/// Runs one request through a connection in this process, as `switchboard call` does: same framing,
/// parsing, dispatch and errors as over stdio, with no pipes.
public enum InProcessCall {
    public struct Outcome: Sendable {
        /// The response message's text, as the connection wrote it (`switchboard call` prints from it
        /// with one parse: a `JSONValue` of a large answer cost more than answering).
        public var responseText: [UInt8]
        /// Notifications sent while the request ran (progress, …), in order.
        public var notifications: [JSONValue]

        /// The whole response message (parsed from ``responseText`` at each use).
        public var response: JSONValue {
            (try? JSONValue(parsing: responseText)) ?? ["error": ["code": -32603, "message": "the response is not JSON"]]
        }
        public var result: JSONValue? { response["result"] }
        public var error: JSONValue? { response["error"] }
    }

    /// Calls `method` with `params` and suspends until the answer comes; never blocks a thread, so
    /// it is safe from tests and tasks.
    public static func call(
        _ method: String, params: JSONValue?, dispatcher: Dispatcher, logger: Logger,
        onNotification: @escaping @Sendable (JSONValue) -> Void = { _ in }
    ) async -> Outcome {
        let exchange = Exchange(onNotification: onNotification)
        let reader = start(method, params: params, dispatcher: dispatcher, logger: logger, exchange: exchange)
        let response = await exchange.response()
        withExtendedLifetime(reader) {}
        return Outcome(responseText: response, notifications: exchange.notifications)
    }

    /// The same, blocking the calling thread until every task is done: for a command's main thread,
    /// never for a task.
    public static func callBlocking(
        _ method: String, params: JSONValue?, dispatcher: Dispatcher, logger: Logger,
        onNotification: @escaping @Sendable (JSONValue) -> Void = { _ in }
    ) -> Outcome {
        let exchange = Exchange(onNotification: onNotification)
        let reader = start(method, params: params, dispatcher: dispatcher, logger: logger, exchange: exchange)
        reader.connection.waitUntilIdle()
        let response = exchange.received ?? Array(#"{"error":{"code":-32603,"message":"no response"}}"#.utf8)
        return Outcome(responseText: response, notifications: exchange.notifications)
    }

    private static func start(_ method: String, params: JSONValue?, dispatcher: Dispatcher, logger: Logger, exchange: Exchange) -> MessageReader {
        let sink = CollectingSink { bytes in exchange.receive(bytes) }
        let connection = Connection(dispatcher: dispatcher, framing: .ndjson, sink: sink, logger: logger)
        let reader = MessageReader(connection: connection)
        var request: JSONObject = ["jsonrpc": "2.0", "id": 1, "method": .string(method)]
        if let params { request["params"] = params }
        let frame = Array(JSONValue.object(request).jsonText().utf8) + [0x0A]
        frame.withUnsafeBytes { reader.receive($0) }
        reader.finishInput()
        return reader
    }

    /// Collects what the connection writes: notifications as they come, and the one response.
    private final class Exchange: Sendable {
        private struct State {
            var response: [UInt8]?
            var notifications: [JSONValue] = []
            var waiter: CheckedContinuation<[UInt8], Never>?
        }

        private let state = Mutex(State())
        private let onNotification: @Sendable (JSONValue) -> Void

        init(onNotification: @escaping @Sendable (JSONValue) -> Void) {
            self.onNotification = onNotification
        }

        func receive(_ bytes: [UInt8]) {
            for line in bytes.split(separator: 0x0A) {
                // The response (an `id`, no `method`) stays text, checked by the scanner alone: a parse
                // of a large answer cost as much as answering. Notifications (and requests) become values.
                let text = Array(line)
                guard let scan = JSONScanner.scan(text), let message = scan.messages.first, !scan.isArray else { continue }
                if message.id == nil || message.method != nil {
                    guard let notification = try? JSONValue(parsing: text) else { continue }
                    state.withLock { $0.notifications.append(notification) }
                    onNotification(notification)
                } else {
                    let waiter = state.withLock { state in
                        state.response = text
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume(returning: text)
                }
            }
        }

        func response() async -> [UInt8] {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.response == nil { state.waiter = continuation }
                    return state.response
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        var received: [UInt8]? { state.withLock { $0.response } }
        var notifications: [JSONValue] { state.withLock { $0.notifications } }
    }
}
