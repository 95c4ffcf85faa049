import Jansson
import JSONRPC
import Logging
import SwitchboardCore

/// The error codes of plugin calls (in JSON-RPC's server range); every error's `data` names the plugin.
extension ErrorCode {
    /// The plugin could not answer: `data.reason` is `crashed`, `timeout`, `protocol`, `failed`,
    /// `startFailed`, `invalid` or `stopped`.
    public static let pluginUnavailable = ErrorCode(rawValue: -32070)
    /// The tool answered `isError: true`: `data` is `{plugin, reason: "toolError", content}`.
    public static let toolError = ErrorCode(rawValue: -32071)
    /// A plugin called a host method its manifest's `calls` does not allow: `data` is
    /// `{plugin, reason: "forbidden", method, allowed}`.
    public static let callForbidden = ErrorCode(rawValue: -32072)
    /// A plugin has as many calls into the host running and queued as its connection holds: `data` is
    /// `{plugin, reason: "busy", method, limit}`. Its answers are still read; it may call again later.
    public static let callbacksBusy = ErrorCode(rawValue: -32073)
}

/// The errors plugin calls answer, built in one place so `data` always names the plugin.
enum PluginError {
    static func unavailable(_ plugin: String, reason: String, message: String, details: JSONObject = [:]) -> ResponseError {
        var data: JSONObject = ["plugin": .string(plugin), "reason": .string(reason)]
        for (key, value) in details { data[key] = value }
        return ResponseError(code: .pluginUnavailable, message: "Plugin \(plugin): \(message)", data: .object(data))
    }

    static func crashed(_ plugin: String, status: ExitStatus, stderrTail: [String]) -> ResponseError {
        var details = status.members
        details["stderrTail"] = .array(stderrTail.map(JSONValue.string))
        return unavailable(plugin, reason: "crashed", message: "the plugin \(status)", details: details)
    }

    static func protocolViolation(_ plugin: String, detail: String, status: ExitStatus?, stderrTail: [String]) -> ResponseError {
        var details = status?.members ?? [:]
        details["detail"] = .string(detail)
        details["stderrTail"] = .array(stderrTail.map(JSONValue.string))
        return unavailable(plugin, reason: "protocol", message: "broke the protocol (\(detail)); it was stopped", details: details)
    }

    static func timeout(_ plugin: String, milliseconds: Int) -> ResponseError {
        unavailable(plugin, reason: "timeout", message: "no answer within \(milliseconds) ms; the call was cancelled",
                    details: ["timeoutMs": .integer(Int64(milliseconds))])
    }

    /// A call cancelled once it was written to the plugin (which is sent `notifications/cancelled`):
    /// `-32800`, but unlike a plain cancel it cannot say that nothing was done, as the plugin may have
    /// acted on the call (its callbacks into the host too).
    static func cancelled(_ plugin: String) -> ResponseError {
        ResponseError(code: .requestCancelled,
                      message: "Request cancelled: plugin \(plugin) was told to stop; what it did before, if anything, is unknown",
                      data: ["plugin": .string(plugin), "reason": "cancelled"], reportsWrites: true)
    }

    /// The most characters of a tool's own message a `-32071` message keeps (the whole content is in `data`).
    static let toolMessageLimit = 1_000

    static func toolError(_ plugin: String, tool: String, content: JSONValue) -> ResponseError {
        let text = content.arrayValue?.first?["text"]?.stringValue.map { ": " + wholeWords($0, limit: toolMessageLimit) } ?? ""
        return ResponseError(code: .toolError, message: "Tool \(tool) failed\(text)",
                             data: ["plugin": .string(plugin), "reason": "toolError", "content": content])
    }

    /// Codes whose meaning is the host's own verdict on a call: a plugin that answers one is not
    /// believed (its `-32800` is no cancellation the client asked for, its `-32070` no crash).
    static let hostCodes: Set<ErrorCode> = [.requestCancelled, .pluginUnavailable, .toolError, .callForbidden, .callbacksBusy]

    /// An error the plugin answered with, passed on with the plugin named: `data` is `{plugin,
    /// reason: "pluginError", data?}` whatever the plugin put there, its message whole up to
    /// ``toolMessageLimit`` characters (past that cut after a whole word). A code of ``hostCodes``
    /// becomes `-32603`, the plugin's own code kept in `data.code`.
    static func fromPlugin(_ plugin: String, _ error: ResponseError) -> ResponseError {
        var data: JSONObject = ["plugin": .string(plugin), "reason": "pluginError"]
        if let original = error.data { data["data"] = original }
        let message = wholeWords(error.message, limit: toolMessageLimit)
        guard hostCodes.contains(error.code) else { return ResponseError(code: error.code, message: message, data: .object(data)) }
        data["code"] = .integer(Int64(error.code.rawValue))
        return ResponseError(code: .internalError, message: "Plugin \(plugin) answered with code \(error.code.rawValue), which only the host gives: \(message)",
                             data: .object(data))
    }

    /// A call the plugin answered with something that is no answer to it (an error without an integer
    /// code, a result the host cannot read, a tool result that is not a `CallToolResult`): `-32070`
    /// with `reason: "protocol"` and `detail`. Only the call fails; the plugin keeps running.
    static func malformed(_ plugin: String, detail: String) -> ResponseError {
        unavailable(plugin, reason: "protocol", message: "its answer broke the protocol: \(detail)", details: ["detail": .string(detail)])
    }

    /// What a failed answer of the plugin becomes: its error made its own (``fromPlugin(_:_:)``), or,
    /// when it is no JSON-RPC error (``malformed(_:detail:)``), a protocol failure, logged.
    static func answered(_ plugin: String, _ failure: PeerFailure, logger: Logger) -> ResponseError {
        let detail: String
        switch failure {
        case .unreadable(let reason):
            detail = "its response: \(reason)"
        case .error(let error?) where error.kind == .object:
            guard let code = error["code"]?.int64, let rawCode = Int(exactly: code) else {
                detail = "an error whose code is \(error["code"].map { "not an integer (\($0.preview(limit: 40)))" } ?? "missing")"
                break
            }
            let message = error["message"]?.string ?? "error without a message"
            return fromPlugin(plugin, ResponseError(code: ErrorCode(rawValue: rawCode), message: message, data: error["data"].map(JSONValue.init)))
        case .error(let error):
            detail = "an error that is not an object (\(error?.preview(limit: 40) ?? "none"))"
        }
        return malformedAnswer(plugin, detail: detail, logger: logger)
    }

    /// A call's answer that is not what it should be (`detail` says how): logged, escaped, as the
    /// plugin's doing, and ``malformed(_:detail:)``; the plugin keeps running.
    static func malformedAnswer(_ plugin: String, detail: String, logger: Logger) -> ResponseError {
        logger.warning("plugin \(plugin) answered a call with \(LogText.escaped(detail))")
        return malformed(plugin, detail: detail)
    }

    static func forbidden(_ plugin: String, method: String, allowed: [String]) -> ResponseError {
        ResponseError(code: .callForbidden,
                      message: "Plugin \(plugin) may not call \(JSONFieldError.excerpt(method)) "
                          + (method.contains(".") ? "(its manifest's calls do not allow it)" : "(only namespace.method host methods are callbacks, whatever calls allow)"),
                      data: ["plugin": .string(plugin), "reason": "forbidden", "method": .string(JSONFieldError.excerpt(method)),
                             "allowed": .array(allowed.map(JSONValue.string))])
    }

    static func busy(_ plugin: String, method: String, limit: Int) -> ResponseError {
        ResponseError(code: .callbacksBusy,
                      message: "Plugin \(plugin) has \(limit) calls into the host running and queued, the most allowed; \(JSONFieldError.excerpt(method)) was refused",
                      data: ["plugin": .string(plugin), "reason": "busy", "method": .string(JSONFieldError.excerpt(method)),
                             "limit": .integer(Int64(limit))])
    }

    /// `text` whole when it has at most `limit` characters, else cut after its last whole word within
    /// them (mid-word only when the first word alone is longer) and ended with `…`.
    static func wholeWords(_ text: String, limit: Int) -> String {
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex), end != scalars.endIndex else {
            return text
        }
        let kept = scalars[..<end]
        let cut = scalars[end].properties.isWhitespace ? end : kept.lastIndex { $0.properties.isWhitespace } ?? end
        return String(String.UnicodeScalarView(scalars[..<cut])).trimming(\.isWhitespace) + "…"
    }
}
