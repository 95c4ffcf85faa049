import Jansson
import JSONRPC
import Logging

/// Runs one request through a connection in this process, as `switchboard call` does: same framing,
/// parsing, dispatch and errors as over stdio, with no pipes.
public enum InProcessCall {
    public struct Outcome: Sendable {
        /// The whole response message.
        public var response: JSONValue
        /// Notifications sent while the request ran (progress, …), in order.
        public var notifications: [JSONValue]

        public var result: JSONValue? { response["result"] }
        public var error: JSONValue? { response["error"] }
    }

    /// Calls `method` with `params` and waits for the answer. Blocks the calling thread: call it from
    /// a plain thread (the main thread of a command), not from a task.
    public static func call(
        _ method: String, params: JSONValue?, dispatcher: Dispatcher, logger: Logger,
        onNotification: @escaping @Sendable (JSONValue) -> Void = { _ in }
    ) -> Outcome {
        let sink = CollectingSink { bytes in
            for message in messages(in: bytes) where message["method"] != nil { onNotification(message) }
        }
        let connection = Connection(dispatcher: dispatcher, framing: .ndjson, sink: sink, logger: logger)
        let reader = MessageReader(connection: connection)
        var request: JSONObject = ["jsonrpc": "2.0", "id": 1, "method": .string(method)]
        if let params { request["params"] = params }
        let frame = Array(JSONValue.object(request).jsonText().utf8) + [0x0A]
        frame.withUnsafeBytes { reader.receive($0) }
        reader.finishInput()
        connection.waitUntilIdle()
        let all = messages(in: sink.bytes)
        let response = all.first { $0["method"] == nil } ?? ["error": ["code": -32603, "message": "no response"]]
        return Outcome(response: response, notifications: all.filter { $0["method"] != nil })
    }

    /// Splits NDJSON output into messages.
    static func messages(in bytes: [UInt8]) -> [JSONValue] {
        bytes.split(separator: 0x0A).compactMap { line in try? JSONValue(parsing: line) }
    }
}
