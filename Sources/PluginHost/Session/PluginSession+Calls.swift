import Jansson
import JSONRPC
import Logging
import Synchronization

/// Requests to the plugin: tool calls with their time-out, cancellation and progress.
extension PluginSession {
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
        // The plugin's error answers arrive made its own (``PluginError/fromPlugin(_:_:)``).
        return try await withTaskCancellationHandler {
            try await connection.response(to: id)
        } onCancel: {
            connection.abandonRequest(id, with: .cancelled)
            connection.notify(method: "notifications/cancelled", params: ["requestId": .integer(id), "reason": "cancelled by the client"])
        }
    }

    /// The error of a call whose result is not what `method` answers (``AnswerShape``): `-32070`
    /// `reason: "protocol"` naming `problem`, logged; the plugin keeps running.
    func malformed(_ method: String, _ problem: String) -> ResponseError {
        PluginError.malformedAnswer(name, detail: "its \(method) result: \(problem)", logger: settings.logger)
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
}

extension JSONValue {
    /// The value without a top-level `_meta` member (MCP's, never a tool argument).
    var withoutMeta: JSONValue {
        guard var object = objectValue, object["_meta"] != nil else { return self }
        object["_meta"] = nil
        return .object(object)
    }
}
