import Jansson
import JSONRPC
import Logging
import Synchronization

/// Runs one request through a connection in this process, as `switchboard call` does: same framing,
/// parsing, dispatch and errors as over stdio, with no pipes.
public enum InProcessCall {
    /// The id the call's request carries (for ``Connection/cancelRunning(_:)``).
    public static let requestID = RequestID.integer(1)

    public struct Outcome: Sendable {
        /// The response message's text, as the connection wrote it (`switchboard call` prints from it
        /// with no parse: a `JSONValue` of a large answer cost more than answering).
        public var responseText: [UInt8]
        /// Where its members are in ``responseText`` (`nil` when it is not one JSON object).
        public var responseMessage: JSONScanner.Message?
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
        return Outcome(responseText: response.text, responseMessage: response.message, notifications: exchange.notifications)
    }

    /// The same, blocking the calling thread until every task is done: for a command's main thread,
    /// never for a task.
    /// `onConnection` sees the connection before the request is read (plugins attach to it).
    public static func callBlocking(
        _ method: String, params: JSONValue?, dispatcher: Dispatcher, logger: Logger,
        onConnection: (Connection) -> Void = { _ in },
        onNotification: @escaping @Sendable (JSONValue) -> Void = { _ in }
    ) -> Outcome {
        let exchange = Exchange(onNotification: onNotification)
        let reader = start(method, params: params, dispatcher: dispatcher, logger: logger, exchange: exchange, onConnection: onConnection)
        reader.connection.waitUntilIdle()
        let response = exchange.received ?? Response(text: Array(#"{"error":{"code":-32603,"message":"no response"}}"#.utf8))
        return Outcome(responseText: response.text, responseMessage: response.message, notifications: exchange.notifications)
    }

    private static func start(_ method: String, params: JSONValue?, dispatcher: Dispatcher, logger: Logger, exchange: Exchange,
                              onConnection: (Connection) -> Void = { _ in }) -> MessageReader {
        let sink = CollectingSink { bytes in exchange.receive(bytes) }
        let connection = Connection(dispatcher: dispatcher, framing: .ndjson, sink: sink, logger: logger)
        onConnection(connection)
        let reader = MessageReader(connection: connection)
        var request: JSONObject = ["jsonrpc": "2.0", "id": 1, "method": .string(method)]
        if let params { request["params"] = params }
        let frame = Array(JSONValue.object(request).jsonText().utf8) + [0x0A]
        frame.withUnsafeBytes { reader.receive($0) }
        reader.finishInput()
        return reader
    }

    /// The response's text and where its members are.
    private struct Response: Sendable {
        var text: [UInt8]
        var message: JSONScanner.Message?

        init(text: [UInt8], message: JSONScanner.Message?) {
            self.text = text
            self.message = message
        }

        init(text: [UInt8]) {
            self.init(text: text, message: JSONScanner.scan(text)?.messages.first)
        }
    }

    /// Collects what the connection writes: notifications as they come, and the one response.
    private final class Exchange: Sendable {
        private struct State {
            var response: Response?
            var notifications: [JSONValue] = []
            var waiter: CheckedContinuation<Response, Never>?
        }

        private let state = Mutex(State())
        private let onNotification: @Sendable (JSONValue) -> Void

        init(onNotification: @escaping @Sendable (JSONValue) -> Void) {
            self.onNotification = onNotification
        }

        func receive(_ bytes: [UInt8]) {
            // Lines found by hand: the generic `split` took 5 M instructions over a 149 kB answer.
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
                defer { start = end + 1 }
                guard end > start else { continue }
                // The response (an `id`, no `method`) stays text, checked by the scanner alone: a parse
                // of a large answer cost as much as answering. Notifications (and requests) become values.
                let text = Array(bytes[start..<end])
                guard let scan = JSONScanner.scan(text), let message = scan.messages.first, !scan.isArray else { continue }
                if message.id == nil || message.method != nil {
                    guard let notification = try? JSONValue(parsing: text) else { continue }
                    state.withLock { $0.notifications.append(notification) }
                    onNotification(notification)
                } else {
                    let response = Response(text: text, message: message)
                    let waiter = state.withLock { state in
                        state.response = response
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume(returning: response)
                }
            }
        }

        func response() async -> Response {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.response == nil { state.waiter = continuation }
                    return state.response
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        var received: Response? { state.withLock { $0.response } }
        var notifications: [JSONValue] { state.withLock { $0.notifications } }
    }
}
